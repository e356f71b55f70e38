#include "harness/progress.h"

#include <unistd.h>

#include <fmt/format.h>

#include <cstdio>

namespace rpclab::harness {

std::string format_duration(double seconds) {
  if (seconds < 60) return fmt::format("{:.0f} s", seconds);
  auto s = static_cast<long>(seconds);
  if (s < 3600) return fmt::format("{} min {} s", s / 60, s % 60);
  return fmt::format("{} h {:02} min", s / 3600, (s % 3600) / 60);
}

Progress::Progress(size_t cells, uint64_t calls) : live_(isatty(STDERR_FILENO)), cells_(cells), calls_total_(calls) {}

void Progress::begin_cell(size_t index, const std::string& label, uint64_t calls) {
  index_ = index;
  label_ = label;
  cell_calls_ = calls;
  cell_done_ = 0;
  cell_start_ = Clock::now();
  update(0);
}

void Progress::update(uint64_t done) {
  cell_done_ = done;
  if (!live_) return;
  double cell_s = std::chrono::duration<double>(Clock::now() - cell_start_).count();
  double run_s = std::chrono::duration<double>(Clock::now() - run_start_).count();
  uint64_t finished = calls_finished_ + done;
  std::string eta = "?";
  if (finished > 0 && run_s > 1)
    eta = format_duration(run_s * static_cast<double>(calls_total_ - std::min(finished, calls_total_)) /
                          static_cast<double>(finished));
  std::string line = fmt::format("[cell {}/{}] {}: {}/{} calls, {:.0f} calls/s, elapsed {}, ETA {}", index_, cells_,
                                 label_, done, cell_calls_, cell_s > 0 ? static_cast<double>(done) / cell_s : 0.0,
                                 format_duration(run_s), eta);
  std::fprintf(stderr, "\r\033[K%s", line.c_str());
  live_shown_ = true;
}

void Progress::clear_live() {
  if (live_shown_) std::fprintf(stderr, "\r\033[K");
  live_shown_ = false;
}

void Progress::end_cell(const std::string& outcome) {
  clear_live();
  calls_finished_ += cell_calls_;
  double cell_s = std::chrono::duration<double>(Clock::now() - cell_start_).count();
  std::fprintf(stderr, "[%zu/%zu] %s: %s (%s)\n", index_, cells_, label_.c_str(), outcome.c_str(),
               format_duration(cell_s).c_str());
}

void Progress::note(const std::string& line) {
  clear_live();
  std::fprintf(stderr, "%s\n", line.c_str());
}

}  // namespace rpclab::harness
