// Garbage, stalls and crowds at each stream server (every stream row of the
// transport table, speaking its protocol from protocols.cc): 1,000
// connections held open at once, thousands more that send
// random bytes or mutated requests and then close, reset or half-close,
// peers that stop mid-request, a server out of descriptors, and one that
// is sent more than it should buffer. A valid client keeps calling
// throughout; the server must keep answering it, never crash, stop with
// exit 0 and a ledger, and run each of the valid client's calls once.
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <thread>

#include "common/sanitizer.h"
#include "forge.h"
#include "protocols.h"
#include "harness/kit/text_table.h"
#include "probe.h"
#include "support/proc_stats.h"
#include "rpc/rpc_test_util.h"
#include "support/server_process.h"
#include "support/socket_state.h"
#include "support/wait.h"
#include "support/wire.h"

namespace rpclab::test {
namespace {

using namespace std::chrono_literals;
using harness::grouped;

constexpr int kHeldConnections = 1000;
constexpr int kAbusiveConnections = 3000;
constexpr int kStalledPeers = 50;
// The longest the valid client may wait, and its calls' timeout. ASan makes
// every server 2-5x slower, and the async gRPC server reads all 4,050
// connections on one thread: under ASan its valid client waited 0.5-1.6 s
// here, and 2.15 s in CI beside another lane (0.2-0.3 s without ASan). The
// sanitizer build is there for memory errors; the plain build holds 2 s.
constexpr double kMaxOutageMs = RPCLAB_ASAN ? 6000 : 2000;

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// Waits until the server has read every byte its peers sent and acted on
// it (gRPC runs handlers on threads of their own: none of its threads may
// still be runnable), so that each request has reached it while its peer
// is still there.
bool wait_until_read(const ServerProcess& server, std::chrono::milliseconds limit) {
  return wait_until([&server] { return tcp_unread_bytes(server.port()) == 0 && every_thread_asleep(server.pid()); },
                    limit);
}

// Reads from `fd` until the server's reply to the one call sent on it
// arrives: for gRPC a DATA frame on stream 1 (the SETTINGS and HEADERS
// before it say nothing of the call), for the others any reply bytes.
bool reply_arrives(int fd, const Protocol& protocol, std::chrono::milliseconds limit) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  std::string got;
  while (std::chrono::steady_clock::now() < deadline) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 50) <= 0) continue;
    char buf[4096];
    ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) return false;
    got.append(buf, static_cast<size_t>(n));
    if (!protocol.replies_in_h2_frames) return got.size() >= 4;
    for (size_t at = 0; at + 9 <= got.size();) {
      size_t length = (uint8_t(got[at]) << 16) | (uint8_t(got[at + 1]) << 8) | uint8_t(got[at + 2]);
      uint32_t stream = (uint32_t(uint8_t(got[at + 5])) << 24 | uint8_t(got[at + 6]) << 16 |
                         uint8_t(got[at + 7]) << 8 | uint8_t(got[at + 8])) & 0x7fffffff;
      if (got[at + 3] == 0 && stream == 1 && length > 0) return true;
      at += 9 + length;
    }
  }
  return false;
}

std::vector<int> open_connections(uint16_t port, int n) {
  std::vector<int> fds;
  for (int i = 0; i < n; ++i) fds.push_back(tcp_connect(port));
  return fds;
}

void close_all(std::vector<int>* fds) {
  for (int fd : *fds) ::close(fd);
  fds->clear();
}

class StreamAbuse : public testing::TestWithParam<std::string> {};

TEST_P(StreamAbuse, TheValidClientIsServedThroughoutAndOnlyItsCallsRunUnderItsId) {
  const std::string transport = GetParam();
  // The held connections, the stalled ones and up to a quarter of the rest.
  constexpr uint64_t kDescriptors = kHeldConnections + kStalledPeers + kAbusiveConnections / 4 + 500;
  uint64_t limit = raise_open_files(kDescriptors);
  if (limit < kDescriptors)
    GTEST_SKIP() << "the test holds up to " << kDescriptors << " descriptors, and RLIMIT_NOFILE's hard limit here is "
                 << limit;
  const Protocol& protocol = protocol_of(transport);
  ServerProcess server(transport);
  Probe probe(transport, server.port(), static_cast<int>(kMaxOutageMs));
  probe.start(5ms);
  auto started = std::chrono::steady_clock::now();

  std::vector<int> held = open_connections(server.port(), kHeldConnections);
  // A peer that stops mid-request holds libtirpc's blocking svc_vc for 35 s
  // (SunrpcTcpServer.StalledPeersHoldItFor35SecondsAtMost, below), so only
  // the other servers get them here, open the whole time.
  Forge forge(protocol.seed);
  std::vector<int> stalled;
  if (!protocol.stalls_hold_the_server)
    for (int i = 0; i < kStalledPeers; ++i) {
      stalled.push_back(tcp_connect(server.port()));
      send_some(stalled.back(), (forge.*protocol.partial)());
    }
  Tally requests, endings;
  std::vector<int> half_closed, left_open;
  for (int i = 0; i < kAbusiveConnections; ++i) {
    int fd = tcp_connect(server.port());
    std::string kind = "random bytes";
    std::string bytes = forge.below(3) == 0 ? forge.random_bytes(65536) : (forge.*protocol.mutated)(&kind);
    send_some(fd, bytes);
    requests.add(kind, bytes.size());
    // A peer that leaves its connection open after garbage is one that
    // stalls mid-request: not for sunrpc-tcp here either.
    switch (forge.below(protocol.stalls_hold_the_server ? 3 : 4)) {
      case 0:
        endings.add("closed", 0);
        ::close(fd);
        break;
      case 1:
        endings.add("reset", 0);
        close_with_reset(fd);
        break;
      case 2:  // the peer says it is done but keeps reading
        endings.add("half-closed", 0);
        ::shutdown(fd, SHUT_WR);
        half_closed.push_back(fd);
        if (half_closed.size() >= 200) close_all(&half_closed);
        break;
      default:
        endings.add("left open", 0);
        left_open.push_back(fd);
    }
    ASSERT_TRUE(server.running()) << server.log();
  }
  // One more forged NEXT, and its reply awaited: the forge must still speak
  // the protocol, whatever the timing of the rest.
  int canary = tcp_connect(server.port());
  send_some(canary, (forge.*protocol.valid_next)());
  EXPECT_TRUE(reply_arrives(canary, protocol, 20s)) << "a forged NEXT got no reply: the forge no longer speaks "
                                                     << transport;
  ::close(canary);
  // A request on a connection the server reaches only after its peer has
  // gone is never run, and a slow server (ASan) reaches most of them late:
  // the forged NEXTs that run would then be none, by timing alone.
  EXPECT_TRUE(wait_until_read(server, 15s)) << tcp_unread_bytes(server.port())
                                           << " bytes still unread 15 s after the abuse ended, or the server still busy";
  close_all(&half_closed);
  close_all(&left_open);
  close_all(&stalled);
  close_all(&held);
  // The probe calls on while the server sees the closes, until only its own connection is left.
  EXPECT_TRUE(wait_until([&server] { return tcp_server_connections(server.port()) <= 1; }, 20s))
      << tcp_server_connections(server.port()) << " connections still open at the server 20 s after their peers closed";
  // Enough calls to speak of service throughout: a server that leaves
  // Nagle on (xmlrpc-pstream) answers one every ~40 ms, and the abuse may
  // be over in half a second.
  EXPECT_TRUE(wait_until([&probe] { return probe.calls() > 10; }, 20s)) << probe.calls() << " calls in 20 s";
  probe.stop();
  double seconds = seconds_since(started);
  ASSERT_TRUE(server.running()) << server.log();
  Ledger ledger = server.stop();  // throws unless it exits 0 after SIGTERM, having written the ledger

  EXPECT_GT(probe.calls(), 10u);
  EXPECT_EQ(probe.ok(), probe.calls()) << probe.first_failures();
  EXPECT_LT(probe.longest_outage_ms(), kMaxOutageMs);
  uint64_t forged_runs = probe.expect_ledger_matches(ledger);
  EXPECT_GT(forged_runs, 0u) << "not even the forged NEXT that got a reply ran";
  std::printf("[ VOLUME   ] %s: %s connections held open at once; %s stalled mid-request; %s more connections "
              "with %s bytes in %.1f s: %s, ended %s; the valid client: %s calls, %s ok, longest wait %.1f ms; "
              "forged NEXTs that ran: %s\n",
              transport.c_str(), grouped(kHeldConnections).c_str(),
              grouped(protocol.stalls_hold_the_server ? 0 : kStalledPeers).c_str(), grouped(requests.count()).c_str(),
              grouped(requests.bytes()).c_str(), seconds, requests.summary().c_str(), endings.summary().c_str(),
              grouped(probe.calls()).c_str(), grouped(probe.ok()).c_str(), probe.longest_outage_ms(),
              grouped(forged_runs).c_str());
}

INSTANTIATE_TEST_SUITE_P(StreamServers, StreamAbuse, testing::ValuesIn(stream_transports()), param_name);

// A peer that stops mid-record, and one that stops reading a large reply.
// libtirpc's svc_vc is single-threaded and blocking: the first holds it in
// read_vc, which polls for up to 35 s (wait_per_try) before it drops the
// connection; the second in write_vc, which has no limit of its own, and
// our TCP_USER_TIMEOUT on the listening socket aborts the connection after
// 35 s (src/sunrpc/sunrpc_server.cc). Each case gets its own server, side
// by side, so the test costs 35 s, not 70. What is measured: how long a
// valid call made once the server is stuck waits for its reply.
struct Stall {
  std::string what;
  int (*start)(uint16_t port);    // makes the peer that stalls the server
  bool (*stuck)(uint16_t port);   // the server is in read_vc or write_vc now
  double held_s = 0;
  bool ok = false;
};

int stop_mid_record(uint16_t port) {
  int fd = tcp_connect(port);
  send_some(fd, record(rpc_call(1, kProgram, 1, 2, xdr_opaque(std::string(4000, 's')))).substr(0, 100));
  return fd;
}

int stop_reading(uint16_t port) {
  int fd = tcp_connect(port, 4096);
  timeval limit{20, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, sizeof limit);
  std::string call = rpc_call(2, kProgram, 1, 2, xdr_opaque(std::string(8 << 20, 'r')));
  for (size_t at = 0; at < call.size(); at += 65536) {  // fragments as clnt_vc writes them
    std::string fragment = call.substr(at, 65536);
    uint32_t mark = static_cast<uint32_t>(fragment.size()) | (at + 65536 >= call.size() ? 0x80000000u : 0);
    std::string bytes = be32(mark) + fragment;
    if (::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(bytes.size())) break;
  }
  return fd;
}

// The server has read the partial record and waits in read_vc for the rest.
bool reading_the_rest(uint16_t port) { return tcp_unread_bytes(port) == 0; }

// The server has read the call and its reply is stuck in write_vc.
bool writing_the_reply(uint16_t port) { return tcp_unread_bytes(port) == 0 && tcp_unsent_bytes(port) > 0; }

void measure_stall(Stall* stall) {
  ServerProcess server("sunrpc-tcp");
  int peer = stall->start(server.port());
  EXPECT_TRUE(wait_until([stall, &server] { return stall->stuck(server.port()); }, 20s))
      << "a peer that " << stall->what << ": the server never got stuck on it";
  Probe probe("sunrpc-tcp", server.port(), 60000);
  auto asked = std::chrono::steady_clock::now();
  stall->ok = probe.call();
  stall->held_s = seconds_since(asked);
  ::close(peer);
  EXPECT_TRUE(server.running()) << server.log();
  probe.expect_ledger_matches(server.stop());
}

TEST(SunrpcTcpServer, StalledPeersHoldItFor35SecondsAtMost) {
  Stall mid_record{"stops mid-record", stop_mid_record, reading_the_rest};
  Stall not_reading{"stops reading a 8 MiB reply", stop_reading, writing_the_reply};
  std::thread a(measure_stall, &mid_record);
  std::thread b(measure_stall, &not_reading);
  a.join();
  b.join();
  for (const Stall* s : {&mid_record, &not_reading}) {
    EXPECT_TRUE(s->ok) << "a peer that " << s->what << ": the valid call failed";
    EXPECT_LT(s->held_s, 40.0) << "a peer that " << s->what << " held the server longer than 35 s";
    // Stock libtirpc behaviour, pinned so that a change is noticed (and
    // docs/architecture.md's "Sun RPC server details" updated).
    EXPECT_GT(s->held_s, 20.0) << "a peer that " << s->what << " no longer holds the server: libtirpc changed?";
    std::printf("[ STALL    ] sunrpc-tcp: a peer that %s held the server for %.1f s\n", s->what.c_str(), s->held_s);
  }
}

// Out of descriptors (the server runs with RLIMIT_NOFILE 128 and 300
// connections arrive): the connections it has keep being served, it does
// not spin on accept(), and once connections close it accepts new ones.
class OutOfDescriptors : public testing::TestWithParam<std::string> {};

TEST_P(OutOfDescriptors, OpenConnectionsAreStillServed) {
  const std::string transport = GetParam();
  // The sanitizer build (ASan with UBSan): gRPC 1.51's callback server,
  // after its "Failed accept4: Too many open files", sometimes makes a
  // UBSan vptr report in gRPC's own template (callback_common.h:208,
  // a CompletionQueueTag call on a tag that is not one), about 1 run in 25
  // on this build and on the one before transport modules. Not ours to
  // fix, and a suppression would need the symbolizer, which EMFILE stops;
  // the plain build runs this check for the callback rows.
  if (RPCLAB_ASAN && transport.rfind("grpc-callback", 0) == 0)
    GTEST_SKIP() << "sanitizer build: gRPC 1.51's callback server makes a UBSan vptr report in its own "
                    "callback_common.h:208 after EMFILE (about 1 run in 25); the plain build runs it";
  ServerProcess server(ServerSpec{transport, {}, {"prlimit", "--nofile=128:128"}});
  Probe probe(transport, server.port(), static_cast<int>(kMaxOutageMs));
  probe.start(5ms);
  std::vector<int> crowd = open_connections(server.port(), 300);
  const Protocol& protocol = protocol_of(transport);
  std::string out_of_descriptors(protocol.out_of_descriptors_says);
  EXPECT_TRUE(wait_until([&] { return server.log().find(out_of_descriptors) != std::string::npos; }, 20s))
      << "the server did not say it ran out of descriptors (\"" << out_of_descriptors << "\"): " << server.log();
  double cpu_before = cpu_seconds(server.pid());
  std::this_thread::sleep_for(1s);  // not a wait: the interval over which CPU per second is measured
  double cpu_per_s = cpu_seconds(server.pid()) - cpu_before;
  close_all(&crowd);
  // The probe calls on until the server has closed the crowd's connections
  // (a server that no longer accepts, gRPC, leaves those in its backlog
  // there: only the ones it holds count).
  EXPECT_TRUE(wait_until([&] { return (protocol.accepts_after_out_of_descriptors
                                           ? tcp_server_connections(server.port())
                                           : tcp_connections_held(server.pid(), server.port())) <= 1; },
                         20s))
      << "the server still holds the crowd's connections 20 s after they closed";
  probe.stop();
  // A new client, once descriptors are free again.
  Probe late(transport, server.port(), 3000, kProbeClient - 1);
  bool late_ok = late.call();
  std::string log = server.log();
  ASSERT_TRUE(server.running()) << log;
  Ledger ledger = server.stop();

  EXPECT_EQ(probe.ok(), probe.calls()) << probe.first_failures();
  EXPECT_LT(probe.longest_outage_ms(), kMaxOutageMs);
  probe.expect_ledger_matches(ledger);
  late.expect_ledger_matches(ledger);
  std::printf("[ EMFILE   ] %s with 128 descriptors and 300 connections: %.2f CPU s/s while out of them; "
              "a new client afterwards: %s\n",
              transport.c_str(), cpu_per_s, late_ok ? "served" : "NOT served");
  EXPECT_LT(cpu_per_s, 0.2) << transport << " spins on accept() when out of descriptors";
  EXPECT_NE(log.find(protocol.out_of_descriptors_says), std::string::npos) << log;
  EXPECT_EQ(late_ok, protocol.accepts_after_out_of_descriptors)
      << (late_ok ? "accepts again after EMFILE: update tests/hardening/protocols.cc and docs/running.md"
                  : late.first_failures());
}

INSTANTIATE_TEST_SUITE_P(StreamServers, OutOfDescriptors, testing::ValuesIn(stream_transports()), param_name);

// Every transport of the table has a row in protocols.cc, and every row
// there names a transport of the table.
TEST(ProtocolTable, CoversEveryTransport) {
  for (const TransportRow& row : transports())
    EXPECT_NO_THROW(protocol_of(std::string(row.name))) << row.name;
  for (const Protocol& p : protocols()) {
    EXPECT_NE(find_transport(p.transport), nullptr) << p.transport << " is not in the transport table";
    const TransportRow* row = find_transport(p.transport);
    if (row && !row->datagram()) {
      EXPECT_TRUE(p.valid_next && p.partial) << p.transport << ": a stream needs both";
    }
  }
}

// 48 peers each start a 16 MiB frame and send 12 MiB of it: 576 MiB that
// raw-tcp would hold without its 256 MiB cap on buffers across connections.
TEST(RawTcpServer, BuffersAcrossConnectionsAreCapped) {
  // Under AddressSanitizer, freed memory waits in a 256 MiB quarantine and
  // would count as held; without the quarantine, the peak is the buffers
  // plus ASan's shadow (an eighth).
  ServerProcess server(ServerSpec{"raw-tcp", {}, {"env", "ASAN_OPTIONS=quarantine_size_mb=0"}});
  Probe probe("raw-tcp", server.port(), 2000);
  probe.start(5ms);
  std::string body(12 << 20, 'b');
  std::vector<int> peers;
  for (int i = 0; i < 48; ++i) {
    int fd = tcp_connect(server.port());
    timeval limit{10, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, sizeof limit);
    std::string header = be32(16 << 20) + be32(1) + std::string(1, '\2');  // ECHO of 16 MiB
    ::send(fd, header.data(), header.size(), MSG_NOSIGNAL);
    ::send(fd, body.data(), body.size(), MSG_NOSIGNAL);  // fails once the server closes this one
    peers.push_back(fd);
  }
  uint64_t peak_mib = status_kib(server.pid(), "VmHWM") >> 10;
  close_all(&peers);
  probe.stop();
  std::string log = server.log();
  ASSERT_TRUE(server.running()) << log;
  probe.expect_ledger_matches(server.stop());
  EXPECT_EQ(probe.ok(), probe.calls()) << probe.first_failures();
  EXPECT_LT(peak_mib, 256u + 96u) << "the server held more than its cap";
  EXPECT_NE(log.find("over the 256 MiB cap"), std::string::npos) << log;
  std::printf("[ MEMORY   ] raw-tcp: 48 peers sent 576 MiB of unfinished frames; the server peaked at %s MiB\n",
              grouped(peak_mib).c_str());
}

}  // namespace
}  // namespace rpclab::test
