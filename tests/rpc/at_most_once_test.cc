// The at-most-once table alone, and in the server core: a repeat of the
// last completed seq is answered with its reply without running, an older
// seq is refused as stale without running, and a newer one runs. With a
// journal the table survives a restart, and every answer is in the journal
// with what the server did.
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "server/at_most_once.h"
#include "server/journal_reader.h"
#include "server/server_core.h"
#include "support/temp_dir.h"

namespace rpclab {
namespace {

using Verdict = AtMostOnceTable::Verdict;

TEST(AtMostOnceTable, ANewClientOrANewerSeqRuns) {
  AtMostOnceTable table;
  EXPECT_EQ(table.check(1, 0).verdict, Verdict::kExecute);
  table.remember(1, 0, {NextStatus::kInOrder, 0, 1});
  EXPECT_EQ(table.check(1, 1).verdict, Verdict::kExecute);
  EXPECT_EQ(table.check(1, 500).verdict, Verdict::kExecute);
  EXPECT_EQ(table.check(2, 0).verdict, Verdict::kExecute);
}

TEST(AtMostOnceTable, TheLastCompletedSeqIsAnsweredWithItsReply) {
  AtMostOnceTable table;
  table.remember(1, 6, {NextStatus::kOutOfOrder, 4, 1});
  AtMostOnceTable::Answer a = table.check(1, 6);
  EXPECT_EQ(a.verdict, Verdict::kRepeat);
  EXPECT_EQ(a.reply.status, NextStatus::kOutOfOrder);
  EXPECT_EQ(a.reply.expected_seq, 4u);
  EXPECT_EQ(a.reply.times_executed, 1u);
}

TEST(AtMostOnceTable, AnOlderSeqIsStaleAndNeverReplacesTheEntry) {
  AtMostOnceTable table;
  table.remember(1, 6, {NextStatus::kInOrder, 6, 1});
  EXPECT_EQ(table.check(1, 5).verdict, Verdict::kStale);
  EXPECT_EQ(table.check(1, 0).verdict, Verdict::kStale);
  table.remember(1, 2, {NextStatus::kInOrder, 2, 1});
  EXPECT_EQ(table.check(1, 6).verdict, Verdict::kRepeat);
  EXPECT_EQ(table.clients(), 1u);
}

ServerCoreOptions at_most_once(const std::string& journal = "") {
  ServerCoreOptions o;
  o.at_most_once = true;
  o.journal_path = journal;
  o.transport = "grpc";
  return o;
}

TEST(AtMostOnceCore, ARepeatIsAnsweredWithoutRunning) {
  ServerCore core(at_most_once());
  NextReply first = core.next(1, 0);
  NextReply again = core.next(1, 0);
  EXPECT_EQ(again.status, first.status);
  EXPECT_EQ(again.expected_seq, first.expected_seq);
  EXPECT_EQ(again.times_executed, 1u);
  EXPECT_EQ(core.next(1, 1).status, NextStatus::kInOrder);  // no mismatch from the repeat
  ServerCounters c = core.counters();
  EXPECT_EQ(c.answered_from_table, 1u);
  EXPECT_EQ(c.mismatches, 0u);
  EXPECT_EQ(c.next_calls, 3u);
}

TEST(AtMostOnceCore, AStaleSeqIsRefusedWithoutRunning) {
  ServerCore core(at_most_once());
  for (uint32_t seq = 0; seq < 3; ++seq) core.next(1, seq);
  NextReply stale = core.next(1, 1);
  EXPECT_EQ(stale.status, NextStatus::kStale);
  EXPECT_EQ(stale.expected_seq, 3u);
  EXPECT_EQ(stale.times_executed, 1u);  // its executions so far, this call not among them
  EXPECT_EQ(core.counters().refused_stale, 1u);
  EXPECT_EQ(core.counters().mismatches, 0u);
}

// gRPC serves from many threads: copies of one call that arrive together
// run once, and every copy gets the one reply.
TEST(AtMostOnceCore, ConcurrentCopiesOfOneCallRunOnce) {
  test::TempDir dir;
  ServerCore core(at_most_once(dir.file("journal.bin")));
  std::vector<std::thread> threads;
  std::vector<NextReply> replies(8);
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      for (uint32_t seq = 0; seq < 200; ++seq) replies[t] = core.next(1, seq);
    });
  for (auto& t : threads) t.join();
  Ledger ledger = read_journal_ledger(dir.file("journal.bin"));
  for (uint32_t seq = 0; seq < 200; ++seq) ASSERT_EQ(ledger.count(1, seq), 1u) << seq;
  for (const NextReply& r : replies) EXPECT_EQ(r.times_executed, 1u);
}

TEST(AtMostOnceCore, TheTableSurvivesARestartThroughTheJournal) {
  test::TempDir dir;
  std::string path = dir.file("journal.bin");
  NextReply original;
  {
    ServerCore core(at_most_once(path));
    core.next(3, 0);
    original = core.next(3, 2);  // out of order
  }
  ServerCore again(at_most_once(path));
  NextReply repeat = again.next(3, 2);
  EXPECT_EQ(repeat.status, original.status);
  EXPECT_EQ(repeat.expected_seq, original.expected_seq);
  EXPECT_EQ(again.next(3, 0).status, NextStatus::kStale);
  EXPECT_EQ(again.next(3, 3).status, NextStatus::kInOrder);
  std::vector<journal::RecordKind> kinds;
  JournalFile file(path);
  check_journal(file.bytes());
  for_each_record(file.bytes(), [&](const journal::Record& r) { kinds.push_back(journal::RecordKind(r.kind)); });
  using K = journal::RecordKind;
  EXPECT_EQ(kinds, (std::vector<K>{K::kExecuted, K::kExecuted, K::kAnsweredFromTable, K::kRefusedStale,
                                   K::kExecuted}));
  Ledger ledger = ledger_from_journal(file.bytes());
  EXPECT_EQ(ledger.total_executions(3), 3u);
  EXPECT_EQ(ledger.mismatches(3), 1u);
}

}  // namespace
}  // namespace rpclab
