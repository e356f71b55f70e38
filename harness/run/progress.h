// What a person watching a long run sees: one line per finished trial
// always (and one per finished cell), and on a terminal a live line with
// the trial running, the time it has taken and an ETA. Nothing here asks
// the server under test anything: a probe during a trial would load the
// very CPU whose load is being measured.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

namespace rpclab::harness {

// What a trial will cost: a number of calls, or a fixed time (a trial
// with timed events lasts its duration, however many calls it makes).
struct TrialWork {
  uint64_t calls = 0;
  double fixed_s = 0;
  TrialWork& operator+=(const TrialWork& o);
  TrialWork& operator-=(const TrialWork& o);  // never below zero
};

class Progress {
 public:
  using Clock = std::chrono::steady_clock;
  using Now = Clock::time_point (*)();
  Progress(size_t trials, TrialWork total, Now now = &Clock::now);  // `now`: a test's clock
  void begin_trial(size_t index, const std::string& label, TrialWork work);
  void tick();                                  // refreshes the live line (terminals only)
  void end_trial(const std::string& outcome);   // "[3/43] label: outcome (12.3 s)"
  void skip_trial(TrialWork work);              // a trial that will not run (its cell was skipped)
  // Seconds still to go at the pace of the trials finished so far: counted
  // calls at their seconds per call, fixed times at their wall time per
  // fixed second (setup included); nullopt while a kind has no pace yet.
  std::optional<double> eta_s() const;
  void note(const std::string& line);           // a line of its own, e.g. a finished cell

 private:
  void clear_live();
  bool live_;
  size_t trials_;
  TrialWork remaining_;
  TrialWork done_;                        // what the finished trials were to cost
  double calls_wall_s_ = 0, fixed_wall_s_ = 0;  // and what they took, by kind
  size_t index_ = 0;
  std::string label_;
  TrialWork trial_;
  Now now_;
  Clock::time_point run_start_, trial_start_;
  bool live_shown_ = false;
};

std::string format_duration(double seconds);  // "42 s", "3 min 5 s", "1 h 02 min"

}  // namespace rpclab::harness
