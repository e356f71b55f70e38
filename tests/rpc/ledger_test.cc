// The execution ledger: counting, the 255+ side table, the memory cap, and
// the file format's round trip and refusal of damaged input.
#include <gtest/gtest.h>

#include "server/ledger.h"
#include "support/temp_dir.h"

namespace rpclab {
namespace {

TEST(Ledger, CountsEachExecution) {
  Ledger ledger;
  EXPECT_EQ(ledger.count(1, 0), 0u);
  EXPECT_EQ(ledger.record(1, 0), 1u);
  EXPECT_EQ(ledger.record(1, 0), 2u);
  EXPECT_EQ(ledger.record(1, 5000), 1u);  // a second chunk
  EXPECT_EQ(ledger.record(2, 0), 1u);     // clients are apart
  EXPECT_EQ(ledger.count(1, 0), 2u);
  EXPECT_EQ(ledger.count(1, 1), 0u);
  EXPECT_EQ(ledger.total_executions(1), 3u);
  EXPECT_EQ(ledger.total_executions(2), 1u);
  EXPECT_EQ(ledger.unrecorded(), 0u);
}

TEST(Ledger, CountsPast254Exactly) {
  Ledger ledger;
  for (uint32_t i = 1; i <= 300; ++i) ASSERT_EQ(ledger.record(7, 42), i);
  EXPECT_EQ(ledger.count(7, 42), 300u);
  EXPECT_EQ(ledger.count(7, 43), 0u);
  EXPECT_EQ(ledger.total_executions(7), 300u);
  Ledger copy = Ledger::parse(ledger.serialize());
  EXPECT_EQ(copy.count(7, 42), 300u);
}

TEST(Ledger, ExactlyAt254And255) {
  Ledger ledger;
  for (int i = 0; i < 254; ++i) ledger.record(1, 1);
  EXPECT_EQ(ledger.count(1, 1), 254u);
  EXPECT_EQ(ledger.record(1, 1), 255u);
  EXPECT_EQ(Ledger::parse(ledger.serialize()).count(1, 1), 255u);
}

TEST(Ledger, PastTheCapCallsAreCountedAsUnrecorded) {
  // Room for one client and one chunk, nothing more.
  Ledger ledger(128 + sizeof(Ledger::Chunk));
  EXPECT_EQ(ledger.record(1, 0), 1u);
  EXPECT_EQ(ledger.record(1, 4095), 1u);            // same chunk: free
  EXPECT_EQ(ledger.record(1, Ledger::kChunkCalls), 0u);  // a new chunk: over the cap
  EXPECT_EQ(ledger.record(2, 0), 0u);               // a new client: over the cap
  EXPECT_EQ(ledger.unrecorded(), 2u);
  EXPECT_EQ(ledger.count(1, Ledger::kChunkCalls), 0u);
  EXPECT_EQ(ledger.clients().size(), 1u);
  EXPECT_EQ(Ledger::parse(ledger.serialize()).unrecorded(), 2u);
}

Ledger sample() {
  Ledger ledger;
  for (uint32_t seq = 0; seq < 5000; ++seq) ledger.record(1, seq);
  ledger.record(1, 17);
  ledger.add_mismatch(1);
  ledger.record(9, 123456);
  for (int i = 0; i < 260; ++i) ledger.record(9, 3);
  ledger.add_mismatch(9);
  ledger.add_mismatch(9);
  return ledger;
}

TEST(Ledger, SerializeParseRoundTrip) {
  Ledger original = sample();
  std::string bytes = original.serialize();
  Ledger copy = Ledger::parse(bytes);
  EXPECT_EQ(copy.serialize(), bytes);
  EXPECT_EQ(copy.count(1, 17), 2u);
  EXPECT_EQ(copy.count(1, 4999), 1u);
  EXPECT_EQ(copy.count(9, 3), 260u);
  EXPECT_EQ(copy.mismatches(1), 1u);
  EXPECT_EQ(copy.mismatches(9), 2u);
  EXPECT_EQ(copy.total_executions(1), 5001u);
  EXPECT_EQ(copy.total_executions(9), 261u);
}

TEST(Ledger, FileRoundTrip) {
  test::TempDir dir;
  sample().write_file(dir.file("ledger.bin"));
  EXPECT_EQ(Ledger::read_file(dir.file("ledger.bin")).count(9, 3), 260u);
}

TEST(Ledger, RejectsEveryTruncation) {
  std::string bytes = sample().serialize();
  for (size_t cut = 0; cut < bytes.size(); ++cut)
    ASSERT_THROW(Ledger::parse(bytes.substr(0, cut)), LedgerError) << "cut at " << cut;
}

TEST(Ledger, RejectsBadMagicAndTrailingBytes) {
  std::string bytes = sample().serialize();
  std::string bad_magic = bytes;
  bad_magic[0] = 'X';
  EXPECT_THROW(Ledger::parse(bad_magic), LedgerError);
  EXPECT_THROW(Ledger::parse(bytes + "x"), LedgerError);
  EXPECT_THROW(Ledger::parse(""), LedgerError);
}

// Little-endian u32, as the ledger writes them.
std::string u32(uint32_t v) {
  std::string out;
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>(v >> (8 * i)));
  return out;
}

std::string header(uint32_t clients) { return "RPCLEDG1" + std::string(8, '\0') + u32(clients); }
std::string client(uint32_t id, uint32_t chunks) { return u32(id) + std::string(8, '\0') + u32(chunks); }
std::string chunk(uint32_t index, char fill) { return u32(index) + std::string(Ledger::kChunkCalls, fill); }

TEST(Ledger, AcceptsAHandBuiltFile) {
  Ledger ledger = Ledger::parse(header(1) + client(4, 1) + chunk(0, 1) + u32(0));
  EXPECT_EQ(ledger.total_executions(4), Ledger::kChunkCalls);
}

TEST(Ledger, RejectsInconsistentContent) {
  // The same client twice would merge silently into wrong counts.
  EXPECT_THROW(Ledger::parse(header(2) + client(4, 0) + client(4, 0) + u32(0)), LedgerError);
  // The same chunk twice.
  EXPECT_THROW(Ledger::parse(header(1) + client(4, 2) + chunk(0, 1) + chunk(0, 1) + u32(0)), LedgerError);
  // A chunk index past the last sequence number.
  EXPECT_THROW(Ledger::parse(header(1) + client(4, 1) + chunk(1u << 20, 1) + u32(0)), LedgerError);
  // A 255 ("see the side table") with no side-table entry.
  EXPECT_THROW(Ledger::parse(header(1) + client(4, 1) + chunk(0, '\xff') + u32(0)), LedgerError);
  // A side-table entry for a cell that does not point to it.
  EXPECT_THROW(Ledger::parse(header(1) + client(4, 1) + chunk(0, 1) + u32(1) + u32(4) + u32(0) + u32(300)),
               LedgerError);
  // A side-table entry below 255, and the same entry twice.
  std::string spilled = header(1) + client(4, 1) + u32(0) + "\xff" + std::string(Ledger::kChunkCalls - 1, 1);
  EXPECT_EQ(Ledger::parse(spilled + u32(1) + u32(4) + u32(0) + u32(300)).count(4, 0), 300u);
  EXPECT_THROW(Ledger::parse(spilled + u32(1) + u32(4) + u32(0) + u32(200)), LedgerError);
  EXPECT_THROW(Ledger::parse(spilled + u32(2) + u32(4) + u32(0) + u32(300) + u32(4) + u32(0) + u32(300)),
               LedgerError);
  // Counts claiming billions of clients in a few bytes: refused, not allocated.
  EXPECT_THROW(Ledger::parse(header(0xffffffff)), LedgerError);
}

}  // namespace
}  // namespace rpclab
