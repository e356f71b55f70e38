// The episode detector on synthetic trials: the cascade of issue 10 (one
// stall, all 8 clients' first duplicates within 1.5 ms, thousands after),
// scattered independent duplicates, and the edges of both rules.
#include <gtest/gtest.h>

#include "harness/dependability/episodes.h"

namespace rpclab::harness {
namespace {

constexpr double kCallS = 0.0048;  // 12,500 calls a client in a minute

ErrorCall dup(uint32_t client, uint64_t index, double end_s, bool silent = true) {
  return {client, index, end_s, silent, 1};
}

// Every client runs clean until the stall, then every call runs twice to the
// end: 8 clients x 3,300 duplicates, first ones within 1.5 ms.
std::vector<ErrorCall> cascade() {
  std::vector<ErrorCall> errors;
  for (uint32_t client = 1; client <= 8; ++client) {
    double onset = 41.2 + 0.0002 * (client - 1);  // 1.4 ms from first to last client
    for (uint64_t i = 0; i < 3300; ++i) errors.push_back(dup(client, 9200 + i, onset + kCallS * static_cast<double>(i)));
  }
  return errors;
}

TEST(Episodes, CascadeInEveryClientIsOneOnset) {
  Episodes e = find_episodes(cascade());
  ASSERT_EQ(e.onsets(), 1u);
  EXPECT_EQ(e.list[0].clients, 8u);
  EXPECT_EQ(e.list[0].error_calls, 26400u);
  EXPECT_EQ(e.list[0].silent, 26400u);
  EXPECT_EQ(e.list[0].extra_executions, 26400u);
  EXPECT_NEAR(e.list[0].onset_spread_s, 0.0014, 1e-9);
  EXPECT_NEAR(*e.first_onset_s(), 41.2, 1e-9);
  EXPECT_NEAR(e.list[0].last_error_s, 41.2014 + kCallS * 3299, 1e-9);
  EXPECT_DOUBLE_EQ(e.errors_per_onset(), 26400);
}

TEST(Episodes, ScatteredDuplicatesAreOnsetsEach) {
  // 50 isolated duplicates spread over a minute, round-robin over 8 clients.
  std::vector<ErrorCall> errors;
  for (uint32_t i = 0; i < 50; ++i) {
    double t = 0.6 + 1.2 * i;
    errors.push_back(dup(i % 8 + 1, static_cast<uint64_t>(t / kCallS), t));
  }
  Episodes e = find_episodes(errors);
  EXPECT_EQ(e.onsets(), 50u);
  EXPECT_DOUBLE_EQ(e.errors_per_onset(), 1);
  for (const Episode& ep : e.list) EXPECT_EQ(ep.clients, 1u);
}

TEST(Episodes, NoErrorsNoOnsets) {
  Episodes e = find_episodes({});
  EXPECT_EQ(e.onsets(), 0u);
  EXPECT_FALSE(e.first_onset_s().has_value());
  EXPECT_DOUBLE_EQ(e.errors_per_onset(), 0);
  EXPECT_EQ(nlohmann::json(episodes_record(e))["first_onset_s"], nullptr);
  EXPECT_EQ(onsets_note({e, e}), "");
}

TEST(Episodes, OneClientCascadeIsOneOnsetOfOneClient) {
  std::vector<ErrorCall> errors;
  for (uint64_t i = 0; i < 294; ++i) errors.push_back(dup(3, 500 + i, 2.4 + kCallS * static_cast<double>(i)));
  Episodes e = find_episodes(errors);
  ASSERT_EQ(e.onsets(), 1u);
  EXPECT_EQ(e.list[0].clients, 1u);
  EXPECT_EQ(e.list[0].error_calls, 294u);
}

TEST(Episodes, ErrorsAtTheVeryStartAndEndAreOnsets) {
  // The first call of the trial needs no clean stretch before it.
  Episodes e = find_episodes({dup(1, 0, 0.0001), dup(1, 12499, 60.0)});
  ASSERT_EQ(e.onsets(), 2u);
  EXPECT_DOUBLE_EQ(*e.first_onset_s(), 0.0001);
  EXPECT_DOUBLE_EQ(e.list[1].onset_s, 60.0);
}

TEST(Episodes, CleanStretchBoundary) {
  EpisodeRules rules;  // 10 clean calls end a run
  // 9 calls that went right between two errors: the same run, one onset.
  EXPECT_EQ(find_episodes({dup(1, 100, 10.0), dup(1, 110, 10.5)}, rules).onsets(), 1u);
  // 10 between them: the run ended, the second error is a new onset.
  EXPECT_EQ(find_episodes({dup(1, 100, 10.0), dup(1, 111, 10.5)}, rules).onsets(), 2u);
  rules.clean_calls = 1;
  EXPECT_EQ(find_episodes({dup(1, 100, 10.0), dup(1, 101, 10.5)}, rules).onsets(), 1u);
  EXPECT_EQ(find_episodes({dup(1, 100, 10.0), dup(1, 102, 10.5)}, rules).onsets(), 2u);
}

TEST(Episodes, WindowBoundaryIsInclusive) {
  EpisodeRules rules;
  rules.window_s = 0.0078125;  // 2^-7 s, exact in binary, so the boundary is exact too
  EXPECT_EQ(find_episodes({dup(1, 10, 1.0), dup(2, 10, 1.0078125)}, rules).onsets(), 1u);
  EXPECT_EQ(find_episodes({dup(1, 10, 1.0), dup(2, 10, 1.0078126)}, rules).onsets(), 2u);
}

TEST(Episodes, WindowIsAnchoredOnTheFirstOnset) {
  // Onsets 6 ms apart in turn over 30 ms: chained they would be one
  // episode; anchored on each episode's first onset they are three.
  std::vector<ErrorCall> errors;
  for (uint32_t i = 0; i <= 5; ++i) errors.push_back(dup(i + 1, 50, 5.0 + 0.006 * i));
  Episodes e = find_episodes(errors);
  ASSERT_EQ(e.onsets(), 3u);
  EXPECT_EQ(e.list[0].clients, 2u);
  EXPECT_EQ(e.list[1].clients, 2u);
  EXPECT_EQ(e.list[2].clients, 2u);
}

TEST(Episodes, TwoRunsOfOneClientInOneWindowCountTheClientOnce) {
  EpisodeRules rules;
  rules.clean_calls = 2;
  Episodes e = find_episodes({dup(1, 10, 3.0), dup(1, 13, 3.001), dup(2, 7, 3.002)}, rules);
  ASSERT_EQ(e.onsets(), 1u);
  EXPECT_EQ(e.list[0].clients, 2u);
  EXPECT_EQ(e.list[0].error_calls, 3u);
}

TEST(Episodes, ReportedDuplicatesCountAsErrorsButNotAsSilent) {
  Episodes e = find_episodes({dup(1, 5, 1.0, false), {1, 6, 1.001, true, 0}});
  ASSERT_EQ(e.onsets(), 1u);
  EXPECT_EQ(e.list[0].error_calls, 2u);
  EXPECT_EQ(e.list[0].silent, 1u);
  EXPECT_EQ(e.list[0].extra_executions, 1u);
}

TEST(Episodes, JsonAndNote) {
  Episodes cascade_trial = find_episodes(cascade());
  nlohmann::json j = episodes_record(cascade_trial);
  EXPECT_EQ(j["onsets"], 1);
  EXPECT_EQ(j["error_calls"], 26400);
  EXPECT_EQ(j["rules"]["clean_calls"], 10);
  EXPECT_DOUBLE_EQ(j["rules"]["window_s"].get<double>(), 0.010);
  EXPECT_EQ(j["episodes"][0]["clients"], 8);
  std::vector<ErrorCall> scattered;
  for (uint32_t i = 0; i < 30; ++i) scattered.push_back(dup(1, 100 * i, 1.0 * i + 0.5));
  EXPECT_EQ(nlohmann::json(episodes_record(find_episodes(scattered), 5))["episodes"].size(), 5u);
  Episodes none = find_episodes({});
  EXPECT_EQ(onsets_note({cascade_trial, none, none, none, none}),
            "onsets per trial 1, 0, 0, 0, 0; 26,400 errors per onset; first onset 41.2 s after the clients started");
  Episodes early = find_episodes({dup(1, 0, 0.0031)});
  EXPECT_EQ(onsets_note({early, cascade_trial}),
            "onsets per trial 1, 1; 13,201 errors per onset; first onset 3.1 ms-41.2 s after the clients started");
}

}  // namespace
}  // namespace rpclab::harness
