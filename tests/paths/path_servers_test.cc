// The replicas' ledgers taken together (path_servers.h): their union is
// what the trial counts duplicates on, and the path figures say where each
// call ran. The ledgers are built by hand; no replica runs.
#include "harness/paths/path_servers.h"

#include <gtest/gtest.h>

#include <vector>

namespace rpclab::harness {
namespace {

void run(Ledger& l, uint32_t client, uint32_t seq, uint32_t times = 1) {
  for (uint32_t i = 0; i < times; ++i) l.record(client, seq);
}

std::vector<Ledger> two_replicas() {
  std::vector<Ledger> ledgers(2);
  run(ledgers[0], 1, 0);
  run(ledgers[0], 1, 1);
  run(ledgers[1], 1, 1);      // (1, 1) ran on both
  run(ledgers[1], 2, 4096);   // another client, in its second chunk
  run(ledgers[1], 2, 4097, 2);  // twice on replica 2 only
  return ledgers;
}

TEST(UnionOf, EveryExecutionCountedWhereverItRan) {
  Ledger all = union_of(two_replicas());
  EXPECT_EQ(all.count(1, 0), 1u);
  EXPECT_EQ(all.count(1, 1), 2u);
  EXPECT_EQ(all.count(2, 4096), 1u);
  EXPECT_EQ(all.count(2, 4097), 2u);
  EXPECT_EQ(all.count(2, 0), 0u);
  EXPECT_EQ(all.total_executions(1), 3u);
  EXPECT_EQ(all.total_executions(2), 3u);
}

TEST(UnionOf, UnrecordedAddUpAndMismatchesDoNotCarry) {
  std::vector<Ledger> ledgers = two_replicas();
  ledgers[0].add_unrecorded(3);
  ledgers[1].add_unrecorded(4);
  // A replica's order check saw the balancer's alternation, which means
  // nothing across replicas.
  ledgers[1].add_mismatch(1);
  Ledger all = union_of(ledgers);
  EXPECT_EQ(all.unrecorded(), 7u);
  EXPECT_EQ(all.mismatches(1), 0u);
}

TEST(UnionOf, CountsPastTheLedgersByteAreKept) {
  // A ledger keeps a count above 254 in its side table; a call run 300
  // times on one replica is 300 in the union, not the byte's mark.
  std::vector<Ledger> ledgers(2);
  run(ledgers[0], 1, 7, 300);
  run(ledgers[1], 1, 7, 2);
  Ledger all = union_of(ledgers);
  EXPECT_EQ(all.count(1, 7), 302u);
}

TEST(UnionOf, NoReplicasIsAnEmptyLedger) {
  Ledger all = union_of({});
  EXPECT_TRUE(all.clients().empty());
  EXPECT_EQ(all.unrecorded(), 0u);
}

TEST(ReplicaFigures, ExecutionsPerReplicaAndCallsOnSeveral) {
  PathFigures f;
  add_replica_figures(two_replicas(), f);
  ASSERT_EQ(f.executions.size(), 2u);
  EXPECT_EQ(f.executions[0], 2u);
  EXPECT_EQ(f.executions[1], 4u);
  EXPECT_EQ(f.calls_on_several, 1u);  // (1, 1)
  // (1, 1) ran once on each: one execution elsewhere. (2, 4097) ran twice,
  // both on replica 2: a repeat, but not elsewhere.
  EXPECT_EQ(f.extra_elsewhere, 1u);
}

TEST(ReplicaFigures, ElsewhereIsWhatTheBusiestReplicaDidNotRun) {
  // (1, 9): 3 on replica 2, 1 on replica 1, 2 on replica 3: 3 elsewhere.
  std::vector<Ledger> ledgers(3);
  run(ledgers[0], 1, 9, 1);
  run(ledgers[1], 1, 9, 3);
  run(ledgers[2], 1, 9, 2);
  PathFigures f;
  add_replica_figures(ledgers, f);
  EXPECT_EQ(f.executions, (std::vector<uint64_t>{1, 3, 2}));
  EXPECT_EQ(f.calls_on_several, 1u);
  EXPECT_EQ(f.extra_elsewhere, 3u);
}

TEST(ReplicaFigures, AReplicaThatRanNothingHasItsZero) {
  std::vector<Ledger> ledgers(3);
  run(ledgers[0], 1, 0);
  run(ledgers[2], 1, 1);
  PathFigures f;
  add_replica_figures(ledgers, f);
  EXPECT_EQ(f.executions, (std::vector<uint64_t>{1, 0, 1}));
  EXPECT_EQ(f.calls_on_several, 0u);
  EXPECT_EQ(f.extra_elsewhere, 0u);
}

TEST(ReplicaFigures, CountsPastTheLedgersByteAreKept) {
  std::vector<Ledger> ledgers(2);
  run(ledgers[0], 1, 7, 300);
  run(ledgers[1], 1, 7, 1);
  PathFigures f;
  add_replica_figures(ledgers, f);
  EXPECT_EQ(f.executions, (std::vector<uint64_t>{300, 1}));
  EXPECT_EQ(f.extra_elsewhere, 1u);
}

}  // namespace
}  // namespace rpclab::harness
