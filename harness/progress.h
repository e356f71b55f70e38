// What a person watching a long run sees: one line per finished trial
// always (and one per finished cell), and on a terminal a live line with
// the trial running, the time it has taken and an ETA. Nothing here asks
// the server under test anything: a probe during a trial would load the
// very CPU whose load is being measured.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace rpclab::harness {

class Progress {
 public:
  Progress(size_t trials, uint64_t calls);
  void begin_trial(size_t index, const std::string& label, uint64_t calls);
  void tick();                                  // refreshes the live line (terminals only)
  void end_trial(const std::string& outcome);   // "[3/43] label: outcome (12.3 s)"
  void skip_trial(uint64_t calls);              // a trial that will not run (its cell was skipped)
  void note(const std::string& line);           // a line of its own, e.g. a finished cell

 private:
  using Clock = std::chrono::steady_clock;
  void clear_live();
  bool live_;
  size_t trials_;
  uint64_t calls_total_;
  uint64_t calls_finished_ = 0;
  size_t index_ = 0;
  std::string label_;
  uint64_t trial_calls_ = 0;
  Clock::time_point run_start_ = Clock::now(), trial_start_ = Clock::now();
  bool live_shown_ = false;
};

std::string format_duration(double seconds);  // "42 s", "3 min 5 s", "1 h 02 min"

}  // namespace rpclab::harness
