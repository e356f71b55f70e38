// The client's call record: one JSON header line, one TSV line per call;
// what format() writes parse() reads back, and a damaged line is refused.
#include <gtest/gtest.h>

#include "core/call_record.h"
#include "support/temp_dir.h"

namespace rpclab {
namespace {

CallRecord sample() {
  CallRecord record;
  record.header["op"] = "next";
  record.header["client_id"] = 3;
  record.calls.push_back({0, ErrorKind::kOk, 0, 12345});
  record.calls.push_back({1, ErrorKind::kTimeout, record.intern("RPC: Timed out"), 25000000000});
  record.calls.push_back({2, ErrorKind::kCannotCode, record.intern("bad\tthing\nhappened"), 7});
  record.calls.push_back({3, ErrorKind::kTimeout, record.intern("RPC: Timed out"), 1});
  return record;
}

TEST(CallRecord, FormatParseRoundTrip) {
  CallRecord original = sample();
  CallRecord copy = CallRecord::parse(original.format());
  EXPECT_EQ(copy.header["op"], "next");
  EXPECT_EQ(copy.header["client_id"], 3);
  EXPECT_EQ(copy.header["version"], CallRecord::kVersion);
  ASSERT_EQ(copy.calls.size(), 4u);
  for (size_t i = 0; i < copy.calls.size(); ++i) {
    EXPECT_EQ(copy.calls[i].seq, original.calls[i].seq);
    EXPECT_EQ(copy.calls[i].kind, original.calls[i].kind);
    EXPECT_EQ(copy.calls[i].latency_ns, original.calls[i].latency_ns);
  }
  EXPECT_EQ(copy.detail(copy.calls[0]), "");
  EXPECT_EQ(copy.detail(copy.calls[1]), "RPC: Timed out");
  EXPECT_EQ(copy.detail(copy.calls[2]), "bad thing happened");  // kept on its line
  EXPECT_EQ(copy.calls[1].detail, copy.calls[3].detail);         // stored once
  EXPECT_EQ(copy.format(), CallRecord::parse(copy.format()).format());
}

TEST(CallRecord, FileRoundTrip) {
  test::TempDir dir;
  sample().write_file(dir.file("calls.record"));
  EXPECT_EQ(CallRecord::read_file(dir.file("calls.record")).calls.size(), 4u);
}

const std::string kHeader = R"({"format":"rpclab-call-record","version":1})";

TEST(CallRecord, AcceptsAHeaderAlone) {
  EXPECT_TRUE(CallRecord::parse(kHeader + "\n").calls.empty());
}

class BadRecord : public testing::TestWithParam<std::string> {};

TEST_P(BadRecord, IsRefusedWithRecordError) { EXPECT_THROW(CallRecord::parse(GetParam()), RecordError); }

INSTANTIATE_TEST_SUITE_P(
    Lines, BadRecord,
    testing::Values("", "not json\n", "[1,2]\n", R"({"format":"something-else","version":1})",
                    R"({"format":"rpclab-call-record","version":2})",
                    R"({"format":7,"version":1})",                     // wrong type, not a crash
                    R"({"format":"rpclab-call-record","version":"1"})",  // wrong type
                    kHeader + "\nx\tok\t5\n",                            // seq not a number
                    kHeader + "\n-1\tok\t5\n",                           // seq negative
                    kHeader + "\n4294967296\tok\t5\n",                   // seq past u32
                    kHeader + "\n1\tfine\t5\n",                          // unknown outcome
                    kHeader + "\n1\tok\n",                               // no latency
                    kHeader + "\n1\tok\t5x\n",                           // latency not a number
                    kHeader + "\n1\n"));

}  // namespace
}  // namespace rpclab
