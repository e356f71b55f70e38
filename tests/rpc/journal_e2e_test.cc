// What every transport's server writes into the journal about who sent a
// NEXT, on real processes over loopback: the fields its library lets it
// tell (a table row per transport; a transport without one fails), and
// for Sun RPC the exact XIDs of hand-made calls, over UDP and TCP.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "common/atomic_file.h"
#include "server/journal_reader.h"
#include "rpc_test_util.h"
#include "support/process.h"
#include "support/server_process.h"
#include "support/temp_dir.h"
#include "support/wire.h"

namespace rpclab::test {
namespace {

using namespace journal;

constexpr uint32_t kLoopback = 0x7f000001;

// What each transport's server can tell of a request (docs/architecture.md,
// "Request identity").
struct IdentityRow {
  const char* transport;
  uint8_t known;
};
constexpr IdentityRow kIdentityRows[] = {
    // SIOCGSTAMPNS: the kernel's stamp of the datagram svc_dg_recv read.
    {"sunrpc-udp", kKnowsRequestId | kKnowsPeer | kKnowsKernelArrival},
    {"sunrpc-tcp", kKnowsRequestId | kKnowsPeer | kKnowsConnection},
    {"grpc", kKnowsAttempt | kKnowsPeer},
    {"grpc-callback-server", kKnowsAttempt | kKnowsPeer},
    {"grpc-callback", kKnowsAttempt | kKnowsPeer},
    // Abyss hands a method its HTTP session, which tells the peer but not
    // which of Abyss's connections carried the call.
    {"xmlrpc", kKnowsPeer},
    // rpclab accepts each packet-stream connection itself, and numbers it.
    {"xmlrpc-pstream", kKnowsPeer | kKnowsConnection},
    // libmicrohttpd numbers nothing, but says when a connection starts.
    {"jsonrpc", kKnowsPeer | kKnowsConnection},
    {"raw-tcp", kKnowsRequestId | kKnowsPeer | kKnowsConnection},
    {"raw-udp", kKnowsRequestId | kKnowsPeer},
};

std::vector<Record> records_of(const std::string& journal_path) {
  std::vector<Record> records;
  JournalFile file(journal_path);
  check_journal(file.bytes());
  for_each_record(file.bytes(), [&](const Record& r) { records.push_back(r); });
  return records;
}

class JournalIdentity : public testing::TestWithParam<std::string> {};

// Two calls on one kept connection, then one on a new connection.
TEST_P(JournalIdentity, EachTransportRecordsWhatItCanTell) {
  const IdentityRow* row = nullptr;
  for (const IdentityRow& r : kIdentityRows)
    if (GetParam() == r.transport) row = &r;
  ASSERT_NE(row, nullptr) << "transport " << GetParam()
                          << " has no row in kIdentityRows (journal_e2e_test.cc): say which request identity its "
                             "server records, and document it in docs/architecture.md";
  TempDir dir;
  ServerProcess server(ServerSpec{GetParam(), {"--journal", dir.file("journal.bin")}});
  NextReply reply;
  auto kept = make_client(GetParam(), server.port());
  ASSERT_TRUE(typed_call(*kept, Operation::kNext, NextRequest{1, 0}, &reply).ok());
  ASSERT_TRUE(typed_call(*kept, Operation::kNext, NextRequest{1, 1}, &reply).ok());
  ASSERT_TRUE(typed_call(*make_client(GetParam(), server.port()), Operation::kNext, NextRequest{1, 2}, &reply).ok());
  server.stop();
  std::vector<Record> records = records_of(dir.file("journal.bin"));
  ASSERT_EQ(records.size(), 3u);
  for (const Record& r : records) {
    EXPECT_EQ(r.known, row->known) << "seq " << r.seq;
    EXPECT_EQ(r.peer_ipv4, kLoopback);
    EXPECT_NE(r.peer_port, 0u);
    EXPECT_EQ(r.kind, static_cast<uint8_t>(RecordKind::kExecuted));
  }
  EXPECT_EQ(records[0].peer_port, records[1].peer_port) << "one kept connection, one source port";
  if (row->known & kKnowsConnection) {
    EXPECT_EQ(records[0].connection, records[1].connection);
    EXPECT_NE(records[1].connection, records[2].connection);
  }
  if (row->known & kKnowsAttempt) {
    EXPECT_EQ(records[0].attempt, 0u) << "a first attempt";
  }
  if (row->known & kKnowsRequestId) {
    EXPECT_NE(records[0].request_id, records[1].request_id);
  }
}

INSTANTIATE_TEST_SUITE_P(Transports, JournalIdentity, testing::ValuesIn(all_transports()), param_name);

// Every client reads the at-most-once answers off its own wire: a repeat of
// the last completed seq gets that call's reply without running it again,
// and an older seq gets STALE (3), with what the server expects next.
class AtMostOnceReplies : public testing::TestWithParam<std::string> {};

TEST_P(AtMostOnceReplies, ReachTheClientOnEveryTransport) {
  TempDir dir;
  ServerProcess server(ServerSpec{GetParam(), {"--journal", dir.file("journal.bin"), "--at-most-once"}});
  auto client = make_client(GetParam(), server.port());
  NextReply reply;
  for (uint32_t seq = 0; seq < 3; ++seq) ASSERT_TRUE(typed_call(*client, Operation::kNext, NextRequest{1, seq}, &reply).ok()) << "seq " << seq;
  CallStatus repeat = typed_call(*client, Operation::kNext, NextRequest{1, 2}, &reply);
  ASSERT_TRUE(repeat.ok()) << repeat.detail;
  EXPECT_EQ(reply.status, NextStatus::kInOrder);
  EXPECT_EQ(reply.times_executed, 1u) << "a repeat answered from the table, not run";
  CallStatus stale = typed_call(*client, Operation::kNext, NextRequest{1, 1}, &reply);
  ASSERT_TRUE(stale.ok()) << "the client could not read the STALE reply: " << stale.detail;
  EXPECT_EQ(reply.status, NextStatus::kStale);
  EXPECT_EQ(reply.expected_seq, 3u);
  EXPECT_EQ(reply.times_executed, 1u);
  EXPECT_EQ(server.stop().total_executions(1), 3u);
}

INSTANTIATE_TEST_SUITE_P(Transports, AtMostOnceReplies, testing::ValuesIn(all_transports()), param_name);

uint16_t local_port(int fd) {
  sockaddr_in sin{};
  socklen_t len = sizeof sin;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&sin), &len);
  return ntohs(sin.sin_port);
}

std::string next_call(uint32_t xid, uint32_t seq) { return rpc_call(xid, kProgram, 1, 1, be32(9) + be32(seq)); }

// The Sun RPC XID comes from libtirpc's own state: public for UDP
// (<rpc/svc_dg.h>), private for TCP (sunrpc_server.cc reads svc_vc's
// struct cf_conn). Hand-made calls with known XIDs check both.
TEST(JournalE2e, RecordsTheSunRpcXidAndCaller) {
  for (std::string transport : {"sunrpc-udp", "sunrpc-tcp"}) {
    SCOPED_TRACE(transport);
    TempDir dir;
    ServerProcess server(ServerSpec{transport, {"--journal", dir.file("journal.bin")}});
    bool datagram = transport == "sunrpc-udp";
    int fd = datagram ? udp_socket() : tcp_connect(server.port());
    const uint32_t xids[] = {0x5eed0001, 0xfeedface, 0x00000003};
    for (uint32_t i = 0; i < 3; ++i) {
      if (datagram) udp_send(fd, server.port(), next_call(xids[i], i));
      else send_some(fd, record(next_call(xids[i], i)));
      std::string reply;
      ASSERT_GT(recv_within(fd, &reply, 5000), 0) << "no reply to call " << i;
    }
    uint16_t port = local_port(fd);
    ::close(fd);
    server.stop();
    std::vector<Record> records = records_of(dir.file("journal.bin"));
    ASSERT_EQ(records.size(), 3u);
    for (uint32_t i = 0; i < 3; ++i) {
      EXPECT_EQ(records[i].request_id, xids[i]) << "call " << i;
      EXPECT_EQ(records[i].seq, i);
      EXPECT_EQ(records[i].client_id, 9u);
      EXPECT_EQ(records[i].peer_port, port);
    }
  }
}

int64_t realtime_now() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

// A hand-made client sends one request twice with the same XID, as a
// network copy would arrive, then a third time later: three runs the XID
// cannot tell apart. The kernel's receive stamp in each record falls
// inside the sendto that carried it, which is what lets the attribution
// (harness/causes/attribution.h) match a run to its transmission.
TEST(JournalE2e, KernelStampsTellApartTransmissionsOfOneXid) {
  TempDir dir;
  ServerProcess server(ServerSpec{"sunrpc-udp", {"--journal", dir.file("journal.bin")}});
  int fd = udp_socket();
  std::vector<std::pair<int64_t, int64_t>> windows;
  std::string reply;
  for (int i = 0; i < 3; ++i) {
    int64_t before = realtime_now();
    udp_send(fd, server.port(), next_call(0xd0d0d0d0, 0));
    windows.push_back({before, realtime_now()});
    if (i == 1) {  // the third leaves after the first two ran
      ASSERT_GT(recv_within(fd, &reply, 5000), 0);
    }
  }
  for (int i = 0; i < 2; ++i) {
    ASSERT_GT(recv_within(fd, &reply, 5000), 0) << "reply " << i;
  }
  ::close(fd);
  server.stop();
  std::vector<Record> records = records_of(dir.file("journal.bin"));
  ASSERT_EQ(records.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(records[i].request_id, 0xd0d0d0d0u);
    ASSERT_TRUE(records[i].known & kKnowsKernelArrival);
    EXPECT_GE(records[i].realtime_ns, windows[i].first);
    EXPECT_LE(records[i].realtime_ns, windows[i].second);
    EXPECT_EQ(records[i].times_executed, i + 1);
  }
}

// A journal the server cannot continue is bad input: exit 2, what is wrong,
// and what to do, before anything is served; the file is left as it was.
TEST(JournalE2e, AServerRefusesAJournalItCannotContinue) {
  TempDir dir;
  std::string garbage = dir.file("garbage.journal");
  write_file_atomically(garbage, std::string(5000, 'x'));
  ProcessResult bad = run_program({bin("rpclab-server"), "--transport", "raw-udp", "--journal", garbage});
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_NE(bad.err.find("--journal: " + garbage + ": not an rpclab journal (bad magic)"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("give the server a new file"), std::string::npos) << bad.err;
  EXPECT_EQ(read_whole_file(garbage), std::string(5000, 'x'));

  std::string udp = dir.file("udp.journal");
  ServerProcess(ServerSpec{"raw-udp", {"--journal", udp}}).stop();
  ProcessResult other = run_program({bin("rpclab-server"), "--transport", "raw-tcp", "--journal", udp});
  EXPECT_EQ(other.exit_code, 2) << other.err;
  EXPECT_NE(other.err.find("written by a raw-udp server, and this one serves raw-tcp"), std::string::npos)
      << other.err;
}

}  // namespace
}  // namespace rpclab::test
