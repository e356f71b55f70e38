// Statistics over trials on hand-made counts: the cascade of issue 10 (one
// trial of five hit, every client in it), binomial and far-from-binomial
// spreads, the bootstrap's determinism, the headline's forms, and the JSON
// form the cell's record keeps.
#include <gtest/gtest.h>

#include "harness/dependability/trial_join.h"
#include "harness/run/trial_stats.h"

namespace rpclab::harness {
namespace {

TrialCounts trial(uint32_t number, std::vector<uint64_t> silent, uint64_t calls_each) {
  TrialCounts t;
  t.trial = number;
  for (size_t i = 0; i < silent.size(); ++i)
    t.clients.push_back({static_cast<uint32_t>(i + 1), calls_each, silent[i], silent[i], silent[i]});
  return t;
}

// Issue 10's load-20 cell: 26,691 silent duplicates in one trial, 3,306 to
// 3,365 per client, and none in four more trials of 100,000 calls.
std::vector<TrialCounts> one_cascade_in_five() {
  std::vector<TrialCounts> trials = {trial(1, {3306, 3365, 3330, 3340, 3320, 3350, 3335, 3345}, 12500)};
  for (uint32_t i = 2; i <= 5; ++i) trials.push_back(trial(i, std::vector<uint64_t>(8, 0), 12500));
  return trials;
}

TEST(TrialStats, OneCascadeInFiveTrialsIsShownAsOne) {
  OverTrials o = over_trials(one_cascade_in_five(), &ClientTrialCounts::silent);
  EXPECT_EQ(o.trials, 5u);
  EXPECT_EQ(o.trials_with_events, 1u);
  EXPECT_NEAR(o.trials_with_events_ci95.low, 0.005051, 5e-6);  // R: binom.test(1, 5)
  EXPECT_NEAR(o.trials_with_events_ci95.high, 0.7164, 5e-5);
  EXPECT_DOUBLE_EQ(o.max_per_million, 266910);
  EXPECT_DOUBLE_EQ(o.median_per_million, 0);
  EXPECT_DOUBLE_EQ(o.pooled.value, 53382);
  EXPECT_EQ(trials_headline(o), "266,910 in 1 of 5 trials (0 in 4)");
  // The trials differ far beyond chance; the clients within the hit trial do not.
  EXPECT_TRUE(o.between_trials.far_beyond_binomial);
  EXPECT_GT(o.between_trials.index, 1000);
  EXPECT_TRUE(o.between_clients.tested);
  EXPECT_FALSE(o.between_clients.far_beyond_binomial) << o.between_clients.index;
  EXPECT_NE(dispersion_note(o).find("spread between trials"), std::string::npos) << dispersion_note(o);
  EXPECT_EQ(dispersion_note(o).find("clients"), std::string::npos);
  // Resampling five trials cannot exclude a resample without the hit one.
  EXPECT_DOUBLE_EQ(o.bootstrap.low_per_million, 0);
  EXPECT_GT(o.bootstrap.high_per_million, o.pooled.value);
  EXPECT_LT(o.bootstrap.high_per_million, o.max_per_million);
  std::string detail = trials_detail(o);
  // Five trials are too few for a bootstrap to mean much: the spread shown
  // is their range, and says so.
  EXPECT_NE(detail.find("median 0, range 0-266,910; pooled 53,382 [range 0-266,910]"), std::string::npos) << detail;
  std::string name;
  Interval spread = pooled_spread(o, &name);
  EXPECT_EQ(name, "range");
  EXPECT_DOUBLE_EQ(spread.high, 266910);
  OverTrials ten = o;
  ten.trials = kLeastBootstrapTrials;
  spread = pooled_spread(ten, &name);
  EXPECT_EQ(name, "bootstrap");
  EXPECT_DOUBLE_EQ(spread.high, o.bootstrap.high_per_million);
  EXPECT_NE(trials_detail(ten).find("[bootstrap 0-"), std::string::npos) << trials_detail(ten);
  EXPECT_NE(detail.find("trials with any: 1 of 5 [0.5%-71.6%]"), std::string::npos) << detail;
}

TEST(TrialStats, PearsonChiSquareMatchesR) {
  // R: chisq.test(matrix(c(10,90, 20,80, 5,95, 25,75), nrow = 2)):
  // X-squared = 19.608, df = 3, p-value = 0.0002047.
  Dispersion d = binomial_dispersion({{{10, 100}, {20, 100}, {5, 100}, {25, 100}}});
  ASSERT_TRUE(d.tested) << d.not_tested_because;
  EXPECT_NEAR(d.chi_square, 19.608, 5e-4);
  EXPECT_DOUBLE_EQ(d.df, 3);
  EXPECT_NEAR(d.p_value, 0.0002047, 5e-8);
  EXPECT_NEAR(d.index, 6.536, 5e-4);
  EXPECT_TRUE(d.far_beyond_binomial);
}

TEST(TrialStats, ClientsWithinTrialsAreComparedToTheirTrialsRate) {
  // Two trials at very different rates, each with clients alike: the
  // clients' spread is judged within each trial, so it is binomial.
  Dispersion d = binomial_dispersion({{{10, 1000}, {11, 1000}, {9, 1000}}, {{300, 1000}, {310, 1000}, {290, 1000}}});
  ASSERT_TRUE(d.tested);
  EXPECT_DOUBLE_EQ(d.df, 4);
  EXPECT_LT(d.index, 1);
  EXPECT_FALSE(d.far_beyond_binomial);
}

TEST(TrialStats, DuplicationCellSpreadBetweenClientsIsFlagged) {
  // Some clients in a cascade, others barely touched: issue 10 measured 10
  // to 443 times the binomial spread in the duplication cells.
  OverTrials o = over_trials({trial(1, {10, 300, 5, 250, 0, 400, 20, 15}, 2500)}, &ClientTrialCounts::silent);
  EXPECT_TRUE(o.between_clients.far_beyond_binomial);
  EXPECT_GT(o.between_clients.index, 10);
  EXPECT_FALSE(o.between_trials.tested);  // one trial: nothing to compare
  EXPECT_NE(dispersion_note(o).find("spread between clients"), std::string::npos);
}

TEST(TrialStats, TooFewErrorsAreNotTestedForSpread) {
  // Three errors, all in one client of eight: chance gives that 1 time in 64.
  Dispersion d = binomial_dispersion({{{3, 100}, {0, 100}, {0, 100}, {0, 100}, {0, 100}, {0, 100}, {0, 100}, {0, 100}}});
  EXPECT_FALSE(d.tested);
  EXPECT_FALSE(d.far_beyond_binomial);
  EXPECT_NE(d.not_tested_because.find("too few"), std::string::npos) << d.not_tested_because;
  EXPECT_FALSE(binomial_dispersion({{{0, 100}, {0, 100}}}).tested);
  EXPECT_FALSE(binomial_dispersion({{{5, 100}}}).tested);
  EXPECT_NE(binomial_dispersion({{{150, 100}, {0, 100}}}).not_tested_because.find("count"), std::string::npos);
}

TEST(TrialStats, BootstrapIsDeterministicAndRecordsItsSeed) {
  std::vector<std::vector<GroupCount>> trials = {{{0, 1000}}, {{100, 1000}}};
  BootstrapInterval a = cluster_bootstrap(trials, 7, 2000);
  BootstrapInterval b = cluster_bootstrap(trials, 7, 2000);
  EXPECT_DOUBLE_EQ(a.low_per_million, b.low_per_million);
  EXPECT_DOUBLE_EQ(a.high_per_million, b.high_per_million);
  EXPECT_EQ(a.seed, 7u);
  EXPECT_EQ(a.resamples, 2000);
  // Resamples of two one-client trials: both the 0 trial (1/4), one of each
  // (1/2), both the 100,000-per-million trial (1/4).
  EXPECT_DOUBLE_EQ(a.low_per_million, 0);
  EXPECT_DOUBLE_EQ(a.high_per_million, 100000);
  // One trial of one client has nothing to resample: the interval is its rate.
  BootstrapInterval one = cluster_bootstrap({{{5, 1000}}});
  EXPECT_DOUBLE_EQ(one.low_per_million, 5000);
  EXPECT_DOUBLE_EQ(one.high_per_million, 5000);
  EXPECT_EQ(one.seed, kBootstrapSeed);
  nlohmann::json j = a;
  EXPECT_EQ(j["seed"], 7);
  EXPECT_EQ(j["resamples"], 2000);
}

TEST(TrialStats, BootstrapOfAlikeTrialsIsNarrowAndHoldsThePooledRate) {
  std::vector<TrialCounts> trials;
  for (uint32_t i = 1; i <= 5; ++i) trials.push_back(trial(i, {30, 28, 33, 29, 31, 30, 27, 32}, 12500));
  OverTrials o = over_trials(trials, &ClientTrialCounts::silent);
  EXPECT_LT(o.bootstrap.low_per_million, o.pooled.value);
  EXPECT_GT(o.bootstrap.high_per_million, o.pooled.value);
  EXPECT_GT(o.bootstrap.low_per_million, 2000);  // pooled 2,400
  EXPECT_LT(o.bootstrap.high_per_million, 2800);
  EXPECT_EQ(trials_headline(o), "2,400 in all 5 trials");
  EXPECT_EQ(dispersion_note(o), "");
}

TEST(TrialStats, HeadlineForms) {
  std::vector<TrialCounts> none;
  for (uint32_t i = 1; i <= 5; ++i) none.push_back(trial(i, std::vector<uint64_t>(8, 0), 12500));
  // None in 5 trials: a trial could still have one up to 52% of the time
  // (Clopper-Pearson, 1 - 0.025^(1/5)); not Wilson's 7.68 per million over
  // the pooled 500,000 calls, which would take them as independent.
  EXPECT_EQ(trials_headline(over_trials(none, &ClientTrialCounts::silent)), "0 in all 5 trials (<=52%)");
  std::vector<TrialCounts> some = none;
  some[1] = trial(2, {12, 0, 0, 0, 0, 0, 0, 0}, 12500);
  some[3] = trial(4, {40, 0, 0, 0, 0, 0, 0, 0}, 12500);
  some[4] = trial(5, {1, 0, 0, 0, 0, 0, 0, 0}, 12500);
  EXPECT_EQ(trials_headline(over_trials(some, &ClientTrialCounts::silent)), "10-400 in 3 of 5 trials (0 in 2)");
  EXPECT_EQ(trials_headline(over_trials({trial(1, {0}, 1000)}, &ClientTrialCounts::silent)), "0 in 1 trial (<=98%)");
  EXPECT_EQ(trials_headline(over_trials({trial(1, {3}, 1000)}, &ClientTrialCounts::silent)), "3,000 in 1 trial");
  EXPECT_EQ(trials_headline(over_trials({}, &ClientTrialCounts::silent)), "no trials");
}

TEST(TrialStats, MedianOfAnEvenNumberOfTrialsAndEmptyTrialsSkipped) {
  std::vector<TrialCounts> trials = {trial(1, {1}, 1000), trial(2, {2}, 1000), trial(3, {3}, 1000),
                                     trial(4, {4}, 1000), trial(5, {}, 0)};
  OverTrials o = over_trials(trials, &ClientTrialCounts::silent);
  EXPECT_EQ(o.trials, 4u);  // a trial without calls has no rate
  EXPECT_DOUBLE_EQ(o.median_per_million, 2500);
  EXPECT_DOUBLE_EQ(o.min_per_million, 1000);
  EXPECT_DOUBLE_EQ(o.max_per_million, 4000);
}

TEST(TrialStats, AnyPerClientFigureCanBeAskedFor) {
  TrialCounts t = trial(1, {0, 0}, 1000);
  t.clients[0].duplicate_calls = 20;
  OverTrials dup = over_trials({t}, &ClientTrialCounts::duplicate_calls);
  EXPECT_DOUBLE_EQ(dup.pooled.value, 10000);
  EXPECT_EQ(over_trials({t}, &ClientTrialCounts::silent).trials_with_events, 0u);
}

TEST(TrialStats, OverTrialsJsonHoldsEveryFigure) {
  nlohmann::json j = over_trials(one_cascade_in_five(), &ClientTrialCounts::silent);
  EXPECT_EQ(j["trials"], 5);
  EXPECT_EQ(j["trials_with_events"], 1);
  EXPECT_EQ(j["trials_with_events_method"], "clopper-pearson");
  EXPECT_EQ(j["pooled_per_million"]["method"], "wilson");
  EXPECT_EQ(j["per_trial_per_million"].size(), 5u);
  EXPECT_EQ(j["bootstrap_per_million"]["seed"], kBootstrapSeed);
  EXPECT_EQ(j["between_trials"]["far_beyond_binomial"], true);
  EXPECT_TRUE(j["between_clients"].contains("index"));
}

TEST(TrialStats, CountsRoundTripThroughJson) {
  TrialCounts t = trial(3, {2, 0}, 500);
  t.clients[0].extra_executions = 5;
  t.clients[0].first_silent_s = 1.25;
  t.clients[0].first_duplicate_s = 1.5;
  TrialCounts back = nlohmann::json::parse(nlohmann::json(t).dump()).get<TrialCounts>();
  EXPECT_EQ(back.trial, 3u);
  ASSERT_EQ(back.clients.size(), 2u);
  EXPECT_EQ(back.clients[0].extra_executions, 5u);
  EXPECT_EQ(back.clients[0].first_silent_s, 1.25);
  EXPECT_EQ(back.clients[0].first_duplicate_s, 1.5);
  EXPECT_FALSE(back.clients[1].first_silent_s.has_value());
  EXPECT_EQ(back.calls(), 1000u);
  EXPECT_EQ(back.total(&ClientTrialCounts::silent), 2u);
  EXPECT_EQ(nlohmann::json(back), nlohmann::json(t));
}

TEST(TrialStats, DamagedCountsAreRefusedWithAReason) {
  nlohmann::json good = trial(1, {2}, 10);
  auto refused = [](const nlohmann::json& j) -> std::string {
    try {
      j.get<TrialCounts>();
    } catch (const TrialCountsError& e) {
      return e.what();
    }
    return "";
  };
  nlohmann::json missing = good;
  missing["clients"][0].erase("calls");
  EXPECT_NE(refused(missing).find("calls"), std::string::npos) << refused(missing);
  nlohmann::json too_many = good;
  too_many["clients"][0]["silent"] = 11;
  EXPECT_NE(refused(too_many).find("11 silent errors"), std::string::npos) << refused(too_many);
  nlohmann::json not_list = good;
  not_list["clients"] = 3;
  EXPECT_NE(refused(not_list).find("not a list"), std::string::npos) << refused(not_list);
  EXPECT_NE(refused(nlohmann::json::array()), "");
}

// The join from records: counts by the classify() rules, and call end times
// from the record's start, each call's start offset and its latency (a
// version 1 record's offsets are estimated when it is read: call_record_test).
TEST(TrialStatsJoin, CountsAndErrorTimesFromRecordsAndLedger) {
  Ledger ledger;
  for (uint32_t seq = 0; seq < 4; ++seq) ledger.record(1, seq);
  ledger.record(1, 2);  // seq 2 ran twice, the client saw ok: silent duplicate
  ledger.record(2, 0);
  ledger.record(2, 0);
  ledger.record(2, 0);  // client 2's only call ran three times, reported as a timeout
  CallRecord one, two;
  // 1 ms each, 0.1 ms of the loop between calls
  for (uint32_t seq = 0; seq < 4; ++seq) one.calls.push_back({seq, ErrorKind::kOk, 0, 1000000, seq * 1100000});
  one.calls.push_back({4, ErrorKind::kOk, 0, 1000000, 4400000});  // never ran: silent loss
  one.header = {{"start_realtime_ns", int64_t{5000000000}}, {"wall_ns", int64_t{5500000}}};
  two.calls.push_back({0, ErrorKind::kTimeout, 0, 2000000, 0});
  two.header = {{"start_realtime_ns", int64_t{4000000000}}, {"wall_ns", int64_t{2000000}}};
  TrialJoin join = join_trial(2, {{1, &one}, {2, &two}}, ledger);
  ASSERT_EQ(join.counts.clients.size(), 2u);
  const ClientTrialCounts& c1 = join.counts.clients[0];
  EXPECT_EQ(c1.calls, 5u);
  EXPECT_EQ(c1.silent, 2u);
  EXPECT_EQ(c1.duplicate_calls, 1u);
  EXPECT_EQ(c1.extra_executions, 1u);
  const ClientTrialCounts& c2 = join.counts.clients[1];
  EXPECT_EQ(c2.silent, 0u);
  EXPECT_EQ(c2.extra_executions, 2u);
  ASSERT_EQ(join.errors.size(), 3u);
  // Client 2 started first (4 s), so it is the origin; client 1's call 2
  // starts 2.2 ms into its record and ends 1 ms later.
  EXPECT_NEAR(join.errors[0].end_s, 1.0 + 0.003 + 0.0002, 1e-9);
  EXPECT_TRUE(join.errors[0].silent);
  EXPECT_EQ(join.errors[0].extra_executions, 1u);
  EXPECT_EQ(join.errors[1].index, 4u);
  EXPECT_NEAR(join.errors[1].end_s, 1.0 + 0.005 + 0.0004, 1e-9);
  EXPECT_EQ(c1.first_silent_s, join.errors[0].end_s);
  EXPECT_EQ(c1.first_duplicate_s, join.errors[0].end_s);
  EXPECT_FALSE(join.errors[2].silent);
  EXPECT_NEAR(join.errors[2].end_s, 0.002, 1e-9);
  EXPECT_EQ(c2.first_duplicate_s, join.errors[2].end_s);
  EXPECT_FALSE(c2.first_silent_s.has_value());
}

}  // namespace
}  // namespace rpclab::harness
