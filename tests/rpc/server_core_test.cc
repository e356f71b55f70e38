// Levy's check in the server core: a run in order, a lost call and a
// repeated call each show up once, and the ledger counts every execution.
#include <gtest/gtest.h>

#include "server/server_core.h"
#include "support/temp_dir.h"

namespace rpclab {
namespace {

TEST(ServerCore, InOrderRunHasNoMismatch) {
  ServerCore core;
  for (uint32_t seq = 0; seq < 100; ++seq) {
    NextReply reply = core.next(1, seq);
    ASSERT_EQ(reply.status, NextStatus::kInOrder);
    ASSERT_EQ(reply.expected_seq, seq);
    ASSERT_EQ(reply.times_executed, 1u);
  }
  EXPECT_EQ(core.counters().mismatches, 0u);
  EXPECT_EQ(core.counters().next_calls, 100u);
}

TEST(ServerCore, ALostCallCountsOnce) {
  ServerCore core;
  core.next(1, 0);
  core.next(1, 1);
  NextReply gap = core.next(1, 3);  // 2 never arrived
  EXPECT_EQ(gap.status, NextStatus::kOutOfOrder);
  EXPECT_EQ(gap.expected_seq, 2u);
  NextReply after = core.next(1, 4);  // back in step: no second mismatch
  EXPECT_EQ(after.status, NextStatus::kInOrder);
  EXPECT_EQ(core.counters().mismatches, 1u);
}

TEST(ServerCore, ARepeatedCallCountsOnceAndIsCountedTwice) {
  ServerCore core;
  core.next(1, 0);
  core.next(1, 1);
  NextReply repeat = core.next(1, 1);
  EXPECT_EQ(repeat.status, NextStatus::kOutOfOrder);
  EXPECT_EQ(repeat.expected_seq, 2u);
  EXPECT_EQ(repeat.times_executed, 2u);
  EXPECT_EQ(core.next(1, 2).status, NextStatus::kInOrder);
  EXPECT_EQ(core.counters().mismatches, 1u);
}

TEST(ServerCore, ClientsAreCheckedApart) {
  ServerCore core;
  core.next(1, 0);
  EXPECT_EQ(core.next(2, 0).status, NextStatus::kInOrder);
  EXPECT_EQ(core.next(1, 1).status, NextStatus::kInOrder);
  EXPECT_EQ(core.counters().mismatches, 0u);
}

TEST(ServerCore, LedgerFileHoldsExecutionsAndMismatches) {
  ServerCore core;
  for (uint32_t seq : {0u, 1u, 1u, 3u}) core.next(5, seq);
  core.count_echo();
  core.count_null();
  test::TempDir dir;
  core.write_ledger(dir.file("ledger.bin"));
  Ledger ledger = Ledger::read_file(dir.file("ledger.bin"));
  EXPECT_EQ(ledger.count(5, 0), 1u);
  EXPECT_EQ(ledger.count(5, 1), 2u);
  EXPECT_EQ(ledger.count(5, 2), 0u);
  EXPECT_EQ(ledger.count(5, 3), 1u);
  EXPECT_EQ(ledger.mismatches(5), 2u);
  EXPECT_EQ(core.counters().echo_calls, 1u);
  EXPECT_EQ(core.counters().null_calls, 1u);
}

TEST(ServerCore, AFullLedgerSaysNotRecorded) {
  ServerCore core(128 + sizeof(Ledger::Chunk));
  EXPECT_EQ(core.next(1, 0).status, NextStatus::kInOrder);
  NextReply full = core.next(2, 0);
  EXPECT_EQ(full.status, NextStatus::kNotRecorded);
  EXPECT_EQ(full.times_executed, 0u);
}

// The expectation table follows only clients the ledger holds, so the
// ledger's cap bounds it: once the ledger is full, a new client id (garbage
// that decodes as NEXT) leaves nothing behind, and its next call again
// finds no expectation.
TEST(ServerCore, AClientTheFullLedgerRefusesIsNotFollowed) {
  ServerCore core(128 + sizeof(Ledger::Chunk));
  core.next(1, 0);
  EXPECT_EQ(core.next(2, 7).status, NextStatus::kNotRecorded);
  NextReply again = core.next(2, 8);
  EXPECT_EQ(again.status, NextStatus::kNotRecorded);
  EXPECT_EQ(again.expected_seq, 0u);
  EXPECT_EQ(core.next(1, 1).status, NextStatus::kInOrder);  // a held client is still followed
}

}  // namespace
}  // namespace rpclab
