// The join, on hand-made ledgers and call records: every class, empty runs,
// clients with gaps, and executions no client accounts for.
#include <gtest/gtest.h>

#include "harness/dependability/classify.h"
#include "harness/dependability/trial_join.h"

namespace rpclab::harness {
namespace {

CallRecord record_of(std::vector<std::pair<uint32_t, ErrorKind>> calls) {
  CallRecord r;
  for (auto [seq, kind] : calls) r.calls.push_back({seq, kind, 0, 1000});
  return r;
}

void run_times(Ledger& ledger, uint32_t client, uint32_t seq, int times) {
  for (int i = 0; i < times; ++i) ledger.record(client, seq);
}

TEST(Classify, EveryClass) {
  Ledger ledger;
  run_times(ledger, 1, 0, 1);  // ok, once    -> correct
  // seq 1: ok, never                          -> silent loss
  run_times(ledger, 1, 2, 3);  // ok, 3 times -> silent duplicate, 2 extra
  run_times(ledger, 1, 3, 1);  // timeout, ran -> indeterminate
  // seq 4: timeout, never                     -> clean failure
  run_times(ledger, 1, 5, 2);  // error, twice -> duplicate, not silent
  CallRecord r = record_of({{0, ErrorKind::kOk},
                            {1, ErrorKind::kOk},
                            {2, ErrorKind::kOk},
                            {3, ErrorKind::kTimeout},
                            {4, ErrorKind::kTimeout},
                            {5, ErrorKind::kUnavailable}});
  ClassCounts c = classify({{1, &r}}, ledger);
  EXPECT_EQ(c.calls, 6u);
  EXPECT_EQ(c.correct, 1u);
  EXPECT_EQ(c.silent_loss, 1u);
  EXPECT_EQ(c.duplicate_calls, 2u);
  EXPECT_EQ(c.extra_executions, 3u);
  EXPECT_EQ(c.silent_duplicates, 1u);
  EXPECT_EQ(c.indeterminate, 1u);
  EXPECT_EQ(c.clean_failure, 1u);
  EXPECT_EQ(c.silent(), 2u);
  EXPECT_EQ(c.unissued_executions, 0u);
  EXPECT_EQ(c.client_errors.at("timeout"), 2u);
  EXPECT_EQ(c.client_errors.at("unavailable"), 1u);
  EXPECT_EQ(c.correct + c.silent_loss + c.duplicate_calls + c.indeterminate + c.clean_failure, c.calls);
}

TEST(Classify, OneCallFromWhatTheClientSawAndTimesItRan) {
  EXPECT_EQ(class_of(ErrorKind::kOk, 1), CallClass::kCorrect);
  EXPECT_EQ(class_of(ErrorKind::kOk, 0), CallClass::kSilentLoss);
  EXPECT_EQ(class_of(ErrorKind::kOk, 2), CallClass::kSilentDuplicate);
  EXPECT_EQ(class_of(ErrorKind::kTimeout, 3), CallClass::kReportedDuplicate);
  EXPECT_EQ(class_of(ErrorKind::kTimeout, 1), CallClass::kIndeterminate);
  EXPECT_EQ(class_of(ErrorKind::kUnavailable, 0), CallClass::kCleanFailure);
  EXPECT_TRUE(is_silent(CallClass::kSilentLoss));
  EXPECT_TRUE(is_silent(CallClass::kSilentDuplicate));
  EXPECT_FALSE(is_silent(CallClass::kReportedDuplicate));
}

TEST(Classify, EmptyRun) {
  Ledger ledger;
  CallRecord r;
  ClassCounts c = classify({{1, &r}}, ledger);
  EXPECT_EQ(c.calls, 0u);
  EXPECT_EQ(c.silent(), 0u);
  EXPECT_EQ(classify({}, ledger).calls, 0u);
}

TEST(Classify, ClientsAreKeptApart) {
  Ledger ledger;
  run_times(ledger, 1, 0, 1);
  run_times(ledger, 2, 0, 2);  // client 2's seq 0 ran twice; client 1's once
  CallRecord a = record_of({{0, ErrorKind::kOk}});
  CallRecord b = record_of({{0, ErrorKind::kOk}});
  ClassCounts c = classify({{1, &a}, {2, &b}}, ledger);
  EXPECT_EQ(c.correct, 1u);
  EXPECT_EQ(c.silent_duplicates, 1u);
  EXPECT_EQ(c.clients_with_silent_errors, 1u);
}

TEST(Classify, CountsTheClientsThatHadSilentErrors) {
  Ledger ledger;
  for (uint32_t client : {1u, 2u, 3u}) run_times(ledger, client, 0, 1);
  run_times(ledger, 2, 1, 2);  // client 2: a silent duplicate
  // client 3, seq 1: ok but never ran -> a silent loss
  run_times(ledger, 1, 1, 1);
  CallRecord r = record_of({{0, ErrorKind::kOk}, {1, ErrorKind::kOk}});
  ClassCounts c = classify({{1, &r}, {2, &r}, {3, &r}}, ledger);
  EXPECT_EQ(c.silent(), 2u);
  EXPECT_EQ(c.clients_with_silent_errors, 2u);
  EXPECT_EQ(classify({{1, &r}}, ledger).clients_with_silent_errors, 0u);
}

TEST(Classify, GapsAndUnissuedExecutions) {
  Ledger ledger;
  // The client stopped early: it recorded 0..2, but seq 3 ran (the call in
  // flight when it was stopped) and the server saw a stray seq 9.
  for (uint32_t s = 0; s < 4; ++s) ledger.record(7, s);
  ledger.record(7, 9);
  CallRecord r = record_of({{0, ErrorKind::kOk}, {2, ErrorKind::kOk}, {1, ErrorKind::kOk}});
  ClassCounts c = classify({{7, &r}}, ledger);
  EXPECT_EQ(c.calls, 3u);
  EXPECT_EQ(c.correct, 3u);
  EXPECT_EQ(c.unissued_executions, 2u);
}

TEST(Classify, LevyMismatchesComeFromTheLedger) {
  Ledger ledger;
  ledger.record(1, 0);
  ledger.add_mismatch(1);
  ledger.add_mismatch(1);
  ledger.add_mismatch(2);  // a client not in this join
  CallRecord r = record_of({{0, ErrorKind::kOk}});
  EXPECT_EQ(classify({{1, &r}}, ledger).levy_mismatches, 2u);
}

TEST(Classify, ARecordNamingASeqTwiceDoesNotUnderflow) {
  Ledger ledger;
  ledger.record(1, 0);
  CallRecord r = record_of({{0, ErrorKind::kOk}, {0, ErrorKind::kOk}});
  ClassCounts c = classify({{1, &r}}, ledger);
  EXPECT_EQ(c.calls, 2u);
  EXPECT_EQ(c.unissued_executions, 0u);
}

}  // namespace
}  // namespace rpclab::harness
