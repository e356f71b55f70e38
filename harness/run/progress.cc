#include "harness/run/progress.h"

#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

namespace rpclab::harness {

std::string format_duration(double seconds) {
  if (seconds < 60) return fmt::format("{:.0f} s", seconds);
  auto s = static_cast<long>(seconds);
  if (s < 3600) return fmt::format("{} min {} s", s / 60, s % 60);
  return fmt::format("{} h {:02} min", s / 3600, (s % 3600) / 60);
}

TrialWork& TrialWork::operator+=(const TrialWork& o) {
  calls += o.calls;
  fixed_s += o.fixed_s;
  return *this;
}

TrialWork& TrialWork::operator-=(const TrialWork& o) {
  calls -= std::min(calls, o.calls);
  fixed_s = std::max(0.0, fixed_s - o.fixed_s);
  return *this;
}

Progress::Progress(size_t trials, TrialWork total, Now now)
    : live_(isatty(STDERR_FILENO)), trials_(trials), remaining_(total), now_(now), run_start_(now()),
      trial_start_(run_start_) {}

void Progress::begin_trial(size_t index, const std::string& label, TrialWork work) {
  index_ = index;
  label_ = label;
  trial_ = work;
  trial_start_ = now_();
  tick();
}

std::optional<double> Progress::eta_s() const {
  double eta = 0;
  if (remaining_.calls > 0) {
    if (done_.calls == 0) return std::nullopt;
    eta += calls_wall_s_ * static_cast<double>(remaining_.calls) / static_cast<double>(done_.calls);
  }
  if (remaining_.fixed_s > 0) {
    if (done_.fixed_s <= 0) return std::nullopt;
    eta += fixed_wall_s_ * remaining_.fixed_s / done_.fixed_s;
  }
  return eta;
}

void Progress::tick() {
  if (!live_) return;
  double trial_s = std::chrono::duration<double>(now_() - trial_start_).count();
  double run_s = std::chrono::duration<double>(now_() - run_start_).count();
  std::optional<double> eta = eta_s();
  std::string size = trial_.fixed_s > 0 ? format_duration(trial_.fixed_s) : fmt::format("{} calls", trial_.calls);
  std::string line = fmt::format("[trial {}/{}] {}: {}, {}, elapsed {}, ETA {}", index_, trials_, label_, size,
                                 format_duration(trial_s), format_duration(run_s),
                                 eta ? format_duration(*eta) : std::string("?"));
  std::fprintf(stderr, "\r\033[K%s", line.c_str());
  live_shown_ = true;
}

void Progress::clear_live() {
  if (live_shown_) std::fprintf(stderr, "\r\033[K");
  live_shown_ = false;
}

void Progress::end_trial(const std::string& outcome) {
  clear_live();
  double trial_s = std::chrono::duration<double>(now_() - trial_start_).count();
  remaining_ -= trial_;
  done_ += trial_;
  (trial_.fixed_s > 0 ? fixed_wall_s_ : calls_wall_s_) += trial_s;
  std::fprintf(stderr, "[%zu/%zu] %s: %s (%s)\n", index_, trials_, label_.c_str(), outcome.c_str(),
               format_duration(trial_s).c_str());
}

void Progress::skip_trial(TrialWork work) {
  trials_ -= trials_ > 0 ? 1 : 0;
  remaining_ -= work;
}

void Progress::note(const std::string& line) {
  clear_live();
  std::fprintf(stderr, "%s\n", line.c_str());
}

}  // namespace rpclab::harness
