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

Progress::Progress(size_t trials, uint64_t calls) : live_(isatty(STDERR_FILENO)), trials_(trials), calls_total_(calls) {}

void Progress::begin_trial(size_t index, const std::string& label, uint64_t calls) {
  index_ = index;
  label_ = label;
  trial_calls_ = calls;
  trial_start_ = Clock::now();
  tick();
}

// The ETA assumes the calls still to make go at the pace of those made.
void Progress::tick() {
  if (!live_) return;
  double trial_s = std::chrono::duration<double>(Clock::now() - trial_start_).count();
  double run_s = std::chrono::duration<double>(Clock::now() - run_start_).count();
  std::string eta = "?";
  if (calls_finished_ > 0)
    eta = format_duration(run_s * static_cast<double>(calls_total_ - std::min(calls_finished_, calls_total_)) /
                          static_cast<double>(calls_finished_));
  std::string line = fmt::format("[trial {}/{}] {}: {} calls, {}, elapsed {}, ETA {}", index_, trials_, label_,
                                 trial_calls_, format_duration(trial_s), format_duration(run_s), eta);
  std::fprintf(stderr, "\r\033[K%s", line.c_str());
  live_shown_ = true;
}

void Progress::clear_live() {
  if (live_shown_) std::fprintf(stderr, "\r\033[K");
  live_shown_ = false;
}

void Progress::end_trial(const std::string& outcome) {
  clear_live();
  calls_finished_ += trial_calls_;
  double trial_s = std::chrono::duration<double>(Clock::now() - trial_start_).count();
  std::fprintf(stderr, "[%zu/%zu] %s: %s (%s)\n", index_, trials_, label_.c_str(), outcome.c_str(),
               format_duration(trial_s).c_str());
}

void Progress::skip_trial(uint64_t calls) {
  trials_ -= trials_ > 0 ? 1 : 0;
  calls_total_ -= std::min(calls, calls_total_);
}

void Progress::note(const std::string& line) {
  clear_live();
  std::fprintf(stderr, "%s\n", line.c_str());
}

}  // namespace rpclab::harness
