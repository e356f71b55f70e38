// What a person watching a long run sees: one line per finished cell always,
// and on a terminal a live line with the cell, its call rate and an ETA.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace rpclab::harness {

class Progress {
 public:
  Progress(size_t cells, uint64_t calls);
  void begin_cell(size_t index, const std::string& label, uint64_t calls);
  void update(uint64_t calls_done_in_cell);  // live line, terminals only
  void end_cell(const std::string& outcome);  // "[3/43] label: outcome (12.3 s)"
  void note(const std::string& line);         // a line of its own, e.g. a skip

 private:
  using Clock = std::chrono::steady_clock;
  void clear_live();
  bool live_;
  size_t cells_;
  uint64_t calls_total_;
  uint64_t calls_finished_ = 0;
  size_t index_ = 0;
  std::string label_;
  uint64_t cell_calls_ = 0;
  uint64_t cell_done_ = 0;
  Clock::time_point run_start_ = Clock::now(), cell_start_ = Clock::now();
  bool live_shown_ = false;
};

std::string format_duration(double seconds);  // "42 s", "3 min 5 s", "1 h 02 min"

}  // namespace rpclab::harness
