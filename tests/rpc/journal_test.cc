// The execution journal on files made by hand: what a SIGKILL leaves (an
// unsealed slot) is skipped and the journal continues after it; what no
// kill can leave (a sealed record that does not match its seal, more holes
// than server starts, a record past the reserved count, a count that
// disagrees, another version, garbage) is refused with a message that says
// what is wrong, never merged into plausible counts.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <random>

#include "common/atomic_file.h"
#include "server/journal.h"
#include "server/journal_reader.h"
#include "server/server_core.h"
#include "transport/transport.h"
#include "support/temp_dir.h"

namespace rpclab {
namespace {

using journal::Header;
using journal::Record;

ServerCoreOptions journaled(const std::string& path, bool at_most_once = false) {
  ServerCoreOptions o;
  o.journal_path = path;
  o.transport = "raw-udp";
  o.at_most_once = at_most_once;
  return o;
}

// A journal of client 1's seqs 0..n-1, each run once, by one server start.
std::string journal_of(const test::TempDir& dir, uint32_t n) {
  std::string path = dir.file("journal.bin");
  ServerCore core(journaled(path));
  for (uint32_t seq = 0; seq < n; ++seq) core.next(1, seq);
  return path;
}

Header& header_in(std::string& bytes) { return *reinterpret_cast<Header*>(bytes.data()); }
// Slot i of a journal's bytes, the file grown with empty slots to hold it
// (a cleanly stopped server trims its journal to the slots it used).
Record& record_in(std::string& bytes, uint64_t i) {
  size_t offset = journal::kHeaderBytes + i * journal::kRecordBytes;
  if (bytes.size() < offset + journal::kRecordBytes) bytes.resize(offset + journal::kRecordBytes, '\0');
  return *reinterpret_cast<Record*>(bytes.data() + offset);
}
void reseal(std::string& bytes, uint64_t i) {
  Record& r = record_in(bytes, i);
  r.seal = 0;
  r.seal = journal::seal_of(r);
}

// The message a damaged journal is refused with; "" if it was accepted.
std::string refusal(const std::string& bytes) {
  try {
    ledger_from_journal(bytes);
  } catch (const JournalError& e) {
    return e.what();
  }
  return "";
}

TEST(Journal, ARestartedCoreContinuesTheLedgerAndLevysCheck) {
  test::TempDir dir;
  std::string path = journal_of(dir, 5);
  ServerCore again(journaled(path));
  NextReply next = again.next(1, 5);
  EXPECT_EQ(next.status, NextStatus::kInOrder);
  EXPECT_EQ(next.expected_seq, 5u);
  NextReply repeat = again.next(1, 4);
  EXPECT_EQ(repeat.status, NextStatus::kOutOfOrder);
  EXPECT_EQ(repeat.times_executed, 2u);
  Ledger ledger = read_journal_ledger(path);
  EXPECT_EQ(ledger.total_executions(1), 7u);
  EXPECT_EQ(ledger.count(1, 4), 2u);
  EXPECT_EQ(ledger.mismatches(1), 1u);
  JournalFile file(path);
  EXPECT_EQ(check_journal(file.bytes()).header.starts, 2u);
}

TEST(Journal, TheLedgerFromTheJournalIsTheLedgerTheServerWrites) {
  test::TempDir dir;
  std::string path = dir.file("journal.bin");
  ServerCore core(journaled(path));
  for (uint32_t seq : {0u, 1u, 1u, 3u, 2u, 7u}) core.next(4, seq);
  for (uint32_t seq = 0; seq < 5000; ++seq) core.next(9, seq);
  core.write_ledger(dir.file("ledger.bin"));
  EXPECT_EQ(read_journal_ledger(path).serialize(), Ledger::read_file(dir.file("ledger.bin")).serialize());
}

TEST(Journal, RecordsCarryTheRequestsIdentityAndTheReply) {
  test::TempDir dir;
  std::string path = dir.file("journal.bin");
  {
    ServerCore core(journaled(path));
    RequestOrigin origin;
    origin.set_request_id(0xdeadbeef);
    origin.set_connection(7);
    origin.set_peer_uri("ipv4:10.1.2.3:4567");
    core.next(2, 0, origin);
  }
  std::vector<Record> records;
  JournalFile file(path);
  check_journal(file.bytes());
  for_each_record(file.bytes(), [&](const Record& r) { records.push_back(r); });
  ASSERT_EQ(records.size(), 1u);
  const Record& r = records[0];
  EXPECT_EQ(r.kind, static_cast<uint8_t>(journal::RecordKind::kExecuted));
  EXPECT_EQ(r.known, journal::kKnowsRequestId | journal::kKnowsConnection | journal::kKnowsPeer);
  EXPECT_EQ(r.request_id, 0xdeadbeefu);
  EXPECT_EQ(r.connection, 7u);
  EXPECT_EQ(r.peer_ipv4, (10u << 24) | (1u << 16) | (2u << 8) | 3u);
  EXPECT_EQ(r.peer_port, 4567u);
  EXPECT_EQ(r.times_executed, 1u);
  EXPECT_EQ(r.start, 1u);
  EXPECT_GT(r.realtime_ns, 0);
  EXPECT_GT(r.monotonic_ns, 0);
}

// A kill between reserving a slot and sealing it leaves the slot unsealed,
// perhaps half written: the call did not complete. The journal skips it,
// and the next start continues after it.
TEST(Journal, AnUnsealedSlotIsSkippedAndTheNextStartContinuesAfterIt) {
  test::TempDir dir;
  std::string path = journal_of(dir, 3);
  std::string bytes = read_whole_file(path);
  header_in(bytes).reserved = 4;
  record_in(bytes, 3).client_id = 1;  // torn: some fields written, no seal
  record_in(bytes, 3).seq = 3;
  write_file_atomically(path, bytes);
  {
    ServerCore again(journaled(path));
    EXPECT_EQ(again.next(1, 3).status, NextStatus::kInOrder);
  }
  JournalFile file(path);
  JournalSummary summary = check_journal(file.bytes());
  EXPECT_EQ(summary.holes, 1u);
  EXPECT_EQ(summary.sealed, 4u);
  EXPECT_EQ(summary.header.reserved, 5u);
  Ledger ledger = ledger_from_journal(file.bytes());
  for (uint32_t seq = 0; seq < 4; ++seq) EXPECT_EQ(ledger.count(1, seq), 1u) << seq;
}

TEST(Journal, ASealedRecordThatDoesNotMatchItsSealIsRefused) {
  test::TempDir dir;
  std::string bytes = read_whole_file(journal_of(dir, 3));
  record_in(bytes, 1).seq = 77;
  EXPECT_NE(refusal(bytes).find("slot 1: its seal does not match"), std::string::npos) << refusal(bytes);
}

TEST(Journal, MoreUnsealedSlotsThanServerStartsIsRefused) {
  test::TempDir dir;
  std::string bytes = read_whole_file(journal_of(dir, 3));
  record_in(bytes, 0).seal = 0;
  record_in(bytes, 2).seal = 0;
  EXPECT_NE(refusal(bytes).find("2 unsealed slots, and 1 server starts"), std::string::npos) << refusal(bytes);
}

TEST(Journal, ARecordPastTheReservedCountIsRefused) {
  test::TempDir dir;
  std::string bytes = read_whole_file(journal_of(dir, 3));
  Record copy = record_in(bytes, 0);
  record_in(bytes, 5) = copy;
  record_in(bytes, 5).index = 5;
  reseal(bytes, 5);
  EXPECT_NE(refusal(bytes).find("slot 5 is sealed, but only 3 slots"), std::string::npos) << refusal(bytes);
}

TEST(Journal, ACountThatDisagreesWithTheRecordsBeforeItIsRefused) {
  test::TempDir dir;
  std::string bytes = read_whole_file(journal_of(dir, 3));
  record_in(bytes, 2).seq = 1;  // a second execution of seq 1 that says it was the first
  reseal(bytes, 2);
  EXPECT_NE(refusal(bytes).find("says execution 1 of client 1 seq 1, but it is execution 2"), std::string::npos)
      << refusal(bytes);
}

TEST(Journal, AnotherVersionOrLayoutIsRefused) {
  test::TempDir dir;
  std::string good = read_whole_file(journal_of(dir, 1));
  std::string bytes = good;
  header_in(bytes).version = 2;
  EXPECT_NE(refusal(bytes).find("journal version 2, and this rpclab reads version 1"), std::string::npos);
  bytes = good;
  header_in(bytes).record_bytes = 128;
  EXPECT_NE(refusal(bytes).find("records of 128 bytes"), std::string::npos);
}

TEST(Journal, GarbageAndTruncationAreRefused) {
  test::TempDir dir;
  std::string good = read_whole_file(journal_of(dir, 3));
  std::mt19937 random(7);
  std::string garbage(8192, '\0');
  for (char& c : garbage) c = static_cast<char>(random());
  EXPECT_NE(refusal(garbage).find("bad magic"), std::string::npos);
  EXPECT_NE(refusal("").find("truncated"), std::string::npos);
  EXPECT_NE(refusal(good.substr(0, 100)).find("truncated"), std::string::npos);
  EXPECT_NE(refusal(good.substr(0, journal::kHeaderBytes + 2 * journal::kRecordBytes))
                .find("header counts 3 slots, and the file holds 2"),
            std::string::npos);
  std::string body = good;
  for (size_t i = journal::kHeaderBytes; i < body.size(); ++i) body[i] = static_cast<char>(random());
  EXPECT_NE(refusal(body).find("slot 0: its seal does not match"), std::string::npos) << refusal(body);
}

TEST(Journal, AServerRefusesADamagedJournalOrAnotherTransports) {
  test::TempDir dir;
  std::string path = journal_of(dir, 3);
  ServerCoreOptions grpc = journaled(path);
  grpc.transport = "grpc";
  try {
    ServerCore other(grpc);
    FAIL() << "a raw-udp journal was continued by a grpc server";
  } catch (const JournalError& e) {
    EXPECT_NE(std::string(e.what()).find("written by a raw-udp server, and this one serves grpc"),
              std::string::npos)
        << e.what();
  }
  std::string bytes = read_whole_file(path);
  record_in(bytes, 0).client_id = 5;
  write_file_atomically(path, bytes);
  EXPECT_THROW(ServerCore damaged(journaled(path)), JournalError);
  EXPECT_THROW(ServerCore folder(journaled(dir.path())), SetupError);
}

// Past the cap a NEXT still runs and says NOT_RECORDED, counted in the
// header, as the ledger counts calls past its own cap; across a restart too.
TEST(Journal, PastTheCapCallsRunUnrecordedAndAreCounted) {
  test::TempDir dir;
  ServerCoreOptions small = journaled(dir.file("journal.bin"), true);
  small.journal_max_bytes = journal::kHeaderBytes + 3 * journal::kRecordBytes;
  {
    ServerCore core(small);
    for (uint32_t seq = 0; seq < 3; ++seq) EXPECT_EQ(core.next(1, seq).status, NextStatus::kInOrder);
    NextReply full = core.next(1, 3);
    EXPECT_EQ(full.status, NextStatus::kNotRecorded);
    EXPECT_EQ(full.times_executed, 0u);
    core.next(1, 2);  // answered from the table, not logged
    core.write_ledger(dir.file("ledger.bin"));
  }
  EXPECT_EQ(read_journal_ledger(small.journal_path).serialize(),
            Ledger::read_file(dir.file("ledger.bin")).serialize());
  ServerCore again(small);
  EXPECT_EQ(again.next(1, 4).status, NextStatus::kNotRecorded);
  JournalFile file(small.journal_path);
  JournalSummary summary = check_journal(file.bytes());
  EXPECT_EQ(summary.header.unrecorded, 2u);
  EXPECT_EQ(summary.header.unlogged, 1u);
  Ledger ledger = ledger_from_journal(file.bytes());
  EXPECT_EQ(ledger.unrecorded(), 2u);
  EXPECT_EQ(ledger.total_executions(1), 3u);
}

// A server's first call must not pay for the journal's growth (a 4 MiB
// fallocate and its page faults, milliseconds under load): the first step
// is taken when the journal opens, before the server says it is ready, and
// a server that ran no call still leaves a journal of its header alone.
TEST(Journal, TheFirstGrowthIsTakenBeforeTheFirstCall) {
  test::TempDir dir;
  std::string path = dir.file("journal.bin");
  {
    ServerCore core(journaled(path));
    EXPECT_EQ(std::filesystem::file_size(path), journal::kHeaderBytes + Journal::kFirstGrowthBytes)
        << "grown before any call";
    core.next(1, 0);
    EXPECT_EQ(std::filesystem::file_size(path), journal::kHeaderBytes + Journal::kFirstGrowthBytes);
  }
  EXPECT_EQ(std::filesystem::file_size(path), journal::kHeaderBytes + journal::kRecordBytes) << "trimmed at the stop";
  { ServerCore idle(journaled(dir.file("idle.bin"))); }
  EXPECT_EQ(std::filesystem::file_size(dir.file("idle.bin")), journal::kHeaderBytes);
}

// Past the first step the file grows by the small step, so the call that
// takes it (and the calls queued behind it) waits a fraction of a
// millisecond, not the 2 to 7 ms a 4 MiB step cost (journal.h).
TEST(Journal, LaterStepsAreSmall) {
  test::TempDir dir;
  std::string path = dir.file("journal.bin");
  ServerCore core(journaled(path));
  constexpr uint32_t kFirstStepRecords = Journal::kFirstGrowthBytes / journal::kRecordBytes;
  for (uint32_t seq = 0; seq <= kFirstStepRecords; ++seq) core.next(1, seq);
  EXPECT_EQ(std::filesystem::file_size(path),
            journal::kHeaderBytes + Journal::kFirstGrowthBytes + Journal::kGrowthBytes);
  EXPECT_LT(Journal::kGrowthBytes, Journal::kFirstGrowthBytes);
}

TEST(Journal, WaitingOnTheReservedCountWorksWhileTheFileIsWritten) {
  test::TempDir dir;
  EXPECT_EQ(journal_reserved(dir.file("absent.bin")), 0u);
  std::string path = dir.file("journal.bin");
  ServerCore core(journaled(path));
  core.next(1, 0);
  core.next(1, 1);
  EXPECT_EQ(journal_reserved(path), 2u);
}

}  // namespace
}  // namespace rpclab
