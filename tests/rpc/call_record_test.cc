// The client's call record: one JSON header line, one TSV line per call and
// one per attempt of a retried call; what format() writes parse() reads
// back, version 1 records are still read, and a damaged line is refused.
#include <gtest/gtest.h>

#include "client/call_record.h"
#include "support/temp_dir.h"

namespace rpclab {
namespace {

CallRecord sample() {
  CallRecord record;
  record.header["op"] = "next";
  record.header["client_id"] = 3;
  record.calls.push_back({0, ErrorKind::kOk, 0, 12345, 0});
  record.calls.push_back({1, ErrorKind::kTimeout, record.intern("RPC: Timed out"), 25000000000, 20000});
  record.calls.push_back({2, ErrorKind::kCannotCode, record.intern("bad\tthing\nhappened"), 7, 25000030000});
  record.calls.push_back({3, ErrorKind::kTimeout, record.intern("RPC: Timed out"), 1, 25000040000});
  // Call 4: the application tried three times (--retry-policy app).
  record.calls.push_back({4, ErrorKind::kOk, 0, 900000, 25000050000, 3});
  record.attempts.push_back({4, 1, ErrorKind::kTimeout, record.intern("RPC: Timed out"), 300000, 25000050000});
  record.attempts.push_back({4, 2, ErrorKind::kUnavailable, record.intern("refused"), 1000, 25000400000});
  record.attempts.push_back({4, 3, ErrorKind::kOk, 0, 450000, 25000500000});
  return record;
}

TEST(CallRecord, FormatParseRoundTrip) {
  CallRecord original = sample();
  CallRecord copy = CallRecord::parse(original.format());
  EXPECT_EQ(copy.header["op"], "next");
  EXPECT_EQ(copy.header["client_id"], 3);
  EXPECT_EQ(copy.header["version"], CallRecord::kVersion);
  ASSERT_EQ(copy.calls.size(), 5u);
  for (size_t i = 0; i < copy.calls.size(); ++i) {
    EXPECT_EQ(copy.calls[i].seq, original.calls[i].seq);
    EXPECT_EQ(copy.calls[i].kind, original.calls[i].kind);
    EXPECT_EQ(copy.calls[i].latency_ns, original.calls[i].latency_ns);
    EXPECT_EQ(copy.calls[i].start_ns, original.calls[i].start_ns);
    EXPECT_EQ(copy.calls[i].attempts, original.calls[i].attempts);
  }
  ASSERT_EQ(copy.attempts.size(), 3u);
  for (size_t i = 0; i < copy.attempts.size(); ++i) {
    const AttemptEntry &a = copy.attempts[i], &b = original.attempts[i];
    EXPECT_EQ(a.call, 4u);
    EXPECT_EQ(a.number, i + 1);
    EXPECT_EQ(a.kind, b.kind);
    EXPECT_EQ(a.latency_ns, b.latency_ns);
    EXPECT_EQ(a.start_ns, b.start_ns);
    EXPECT_EQ(copy.detail(a), original.detail(b));
  }
  EXPECT_EQ(copy.detail(copy.calls[0]), "");
  EXPECT_EQ(copy.detail(copy.calls[1]), "RPC: Timed out");
  EXPECT_EQ(copy.detail(copy.calls[2]), "bad thing happened");  // kept on its line
  EXPECT_EQ(copy.calls[1].detail, copy.calls[3].detail);         // stored once
  EXPECT_EQ(copy.format(), CallRecord::parse(copy.format()).format());
}

// Version 1 records (before start times and attempts) are still read: each
// call starts where the one before ended, plus an equal share of the time
// the header's wall time holds beyond the latencies.
TEST(CallRecord, ReadsVersion1WithEstimatedStartTimes) {
  std::string v1 = R"({"format":"rpclab-call-record","version":1,"wall_ns":3300})"
                   "\n0\tok\t1000\n1\ttimeout\t1000\tRPC: Timed out\n2\tok\t1000\n";
  CallRecord r = CallRecord::parse(v1);
  ASSERT_EQ(r.calls.size(), 3u);
  EXPECT_EQ(r.calls[0].start_ns, 0);
  EXPECT_EQ(r.calls[1].start_ns, 1100);
  EXPECT_EQ(r.calls[2].start_ns, 2200);
  EXPECT_EQ(r.calls[1].attempts, 1u);
  EXPECT_EQ(r.detail(r.calls[1]), "RPC: Timed out");
  EXPECT_TRUE(r.attempts.empty());
  EXPECT_EQ(CallRecord::parse(r.format()).calls[2].start_ns, 2200) << "written again as version 2";
}

// The servers called: `servers` when a list was given (rpclab-client
// --server A:P,B:P), else the one `server` every older record has.
TEST(CallRecord, ServersFromTheListOrTheOneServer) {
  std::string v1 = R"({"format":"rpclab-call-record","version":1,"server":"127.0.0.1:47123"})"
                   "\n0\tok\t1000\n";
  EXPECT_EQ(CallRecord::parse(v1).servers(), std::vector<std::string>{"127.0.0.1:47123"});
  std::string listed = R"({"format":"rpclab-call-record","version":2,"server":"127.0.0.1:1,127.0.0.1:2",)"
                       R"("servers":["127.0.0.1:1","127.0.0.1:2"]})"
                       "\n";
  CallRecord r = CallRecord::parse(listed);
  EXPECT_EQ(r.servers(), (std::vector<std::string>{"127.0.0.1:1", "127.0.0.1:2"}));
  EXPECT_EQ(CallRecord::parse(r.format()).servers(), r.servers()) << "written again";
  EXPECT_TRUE(CallRecord::parse(R"({"format":"rpclab-call-record","version":2})" "\n").servers().empty());
}

TEST(CallRecord, FileRoundTrip) {
  test::TempDir dir;
  sample().write_file(dir.file("calls.record"));
  EXPECT_EQ(CallRecord::read_file(dir.file("calls.record")).calls.size(), 5u);
}

const std::string kHeader = R"({"format":"rpclab-call-record","version":1})";
const std::string kHeader2 = R"({"format":"rpclab-call-record","version":2})";

TEST(CallRecord, AcceptsAHeaderAlone) {
  EXPECT_TRUE(CallRecord::parse(kHeader + "\n").calls.empty());
}

class BadRecord : public testing::TestWithParam<std::string> {};

TEST_P(BadRecord, IsRefusedWithRecordError) { EXPECT_THROW(CallRecord::parse(GetParam()), RecordError); }

INSTANTIATE_TEST_SUITE_P(
    Lines, BadRecord,
    testing::Values("", "not json\n", "[1,2]\n", R"({"format":"something-else","version":1})",
                    R"({"format":"rpclab-call-record","version":3})",
                    R"({"format":7,"version":1})",                     // wrong type, not a crash
                    R"({"format":"rpclab-call-record","version":"1"})",  // wrong type
                    kHeader + "\nx\tok\t5\n",                            // seq not a number
                    kHeader + "\n-1\tok\t5\n",                           // seq negative
                    kHeader + "\n4294967296\tok\t5\n",                   // seq past u32
                    kHeader + "\n1\tfine\t5\n",                          // unknown outcome
                    kHeader + "\n1\tok\n",                               // no latency
                    kHeader + "\n1\tok\t5x\n",                           // latency not a number
                    kHeader + "\n1\n",
                    kHeader2 + "\n1\tok\t5\n",                               // no start, no attempts
                    kHeader2 + "\n1\tok\t5\t0\t0\n",                         // 0 attempts
                    kHeader2 + "\n1\tok\t5\t0\t2\n+1\ttimeout\t3\t0\n",    // one attempt line missing
                    kHeader2 + "\n1\tok\t5\t0\t2\n+1\ttimeout\t3\t0\n2\tok\t5\t9\t1\n",
                    kHeader2 + "\n1\tok\t5\t0\t2\n+2\ttimeout\t3\t0\n+1\tok\t2\t3\n",  // out of order
                    kHeader2 + "\n+1\tok\t5\t0\n",                           // an attempt of no call
                    kHeader2 + "\n1\tok\t5\t0\t1\n+1\tok\t5\t0\n"));      // one more than owed

}  // namespace
}  // namespace rpclab
