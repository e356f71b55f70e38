// The live line's ETA: counted trials at their pace per call, timed
// trials (fixed duration) at their wall time per fixed second.
#include "harness/run/progress.h"

#include <gtest/gtest.h>

namespace rpclab::harness {
namespace {

using namespace std::chrono_literals;

Progress::Clock::time_point fake_now;
Progress::Clock::time_point now() { return fake_now; }

void run_trial(Progress& p, size_t index, TrialWork work, std::chrono::milliseconds took) {
  p.begin_trial(index, "cell", work);
  fake_now += took;
  p.end_trial("ok");
}

TEST(Progress, TimedTrialsGoAtTheirWallTimeNotTheirCallCap) {
  // Four 5 s trials of a failures cell (a cap of 1,000,000 calls each): the
  // first took 6 s with its setup, so three more take 18 s.
  Progress p(4, TrialWork{0, 20.0}, &now);
  EXPECT_FALSE(p.eta_s()) << "no pace before a trial has finished";
  run_trial(p, 1, TrialWork{0, 5.0}, 6000ms);
  ASSERT_TRUE(p.eta_s());
  EXPECT_DOUBLE_EQ(*p.eta_s(), 18.0);
}

TEST(Progress, CountedAndTimedTrialsAddTheirOwnPaces) {
  Progress p(4, TrialWork{2000, 10.0}, &now);
  run_trial(p, 1, TrialWork{1000, 0}, 2000ms);  // 2 ms a call
  EXPECT_FALSE(p.eta_s()) << "the timed trials have no pace yet";
  run_trial(p, 2, TrialWork{0, 5.0}, 7000ms);  // 1.4 s per fixed second
  ASSERT_TRUE(p.eta_s());
  EXPECT_DOUBLE_EQ(*p.eta_s(), 1000 * 0.002 + 5.0 * 1.4);
  p.skip_trial(TrialWork{1000, 0});
  EXPECT_DOUBLE_EQ(*p.eta_s(), 7.0);
  run_trial(p, 3, TrialWork{0, 5.0}, 7000ms);
  EXPECT_DOUBLE_EQ(*p.eta_s(), 0.0);
}

}  // namespace
}  // namespace rpclab::harness
