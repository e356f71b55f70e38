// 100,000 datagrams of garbage at each UDP server, half random bytes and
// half mutations of real calls (truncated, wrong program, version or
// procedure, huge length fields, flipped bits), while a valid client keeps
// calling. The server must answer the valid client between every burst,
// never crash, stop with exit 0 and a ledger, and its ledger must hold each
// of the valid client's calls exactly once.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <thread>

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

constexpr uint64_t kDatagrams = 100000;
constexpr int kBurst = 50;  // datagrams between two calls of the probe
// The longest the probe may go without a successful call. A burst takes
// the server a few milliseconds; this leaves room for a loaded 2-CPU box.
constexpr double kMaxOutageMs = 2000;

// Waits until the server has read every datagram sent so far, so that the
// probe's call is not dropped behind a full receive buffer (the probe never
// retransmits; see Probe). False if it has not within 5 s.
bool wait_until_read(uint16_t port) {
  return wait_until([port] { return udp_socket_state(port).rx_queue == 0; }, 5s, 100us);
}

class DatagramAbuse : public testing::TestWithParam<std::string> {};

TEST_P(DatagramAbuse, TheValidClientIsServedThroughoutAndOnlyItsCallsRunUnderItsId) {
  const std::string transport = GetParam();
  ServerProcess server(transport);
  Probe probe(transport, server.port(), 2000);
  const Protocol& protocol = protocol_of(transport);
  Forge forge(protocol.seed);
  Tally random, mutated;
  uint64_t scrubs = 0;
  int fd = udp_socket();
  auto started = std::chrono::steady_clock::now();
  while (random.count() + mutated.count() < kDatagrams) {
    // libtirpc's svc_dg decodes a datagram from its whole buffer, so a short
    // one is completed by what the previous datagram left there
    // (tests/rpc: SunrpcUdp.DecodesPastTheEndOfAShortDatagram). After the
    // probe's call that is the probe's id and seq: a truncated forged NEXT
    // would run the probe's call again. 64 bytes of 0xff, which libtirpc
    // reads and refuses, overwrite them before the next burst.
    if (protocol.reads_past_a_datagram) {
      udp_send(fd, server.port(), std::string(64, '\xff'));
      ++scrubs;
    }
    for (int i = 0; i < kBurst; ++i) {
      std::string kind, datagram;
      if (forge.below(2)) {
        datagram = forge.random_datagram();
        random.add("random", datagram.size());
      } else {
        datagram = (forge.*protocol.mutated)(&kind);
        mutated.add(kind, datagram.size());
      }
      udp_send(fd, server.port(), datagram);
    }
    ASSERT_TRUE(wait_until_read(server.port())) << "the server stopped reading: " << server.log();
    probe.call();
  }
  ::close(fd);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  UdpSocketState socket = udp_socket_state(server.port());
  ASSERT_TRUE(server.running()) << server.log();
  Ledger ledger = server.stop();  // throws unless it exits 0 after SIGTERM, having written the ledger

  EXPECT_EQ(probe.ok(), probe.calls()) << probe.first_failures();
  EXPECT_LT(probe.longest_outage_ms(), kMaxOutageMs);
  uint64_t forged_runs = probe.expect_ledger_matches(ledger);
  EXPECT_GT(forged_runs, 0u) << "no forged NEXT ran: the forge no longer speaks " << transport;
  std::printf("[ VOLUME   ] %s: %s datagrams, %s bytes in %.1f s (random %s; mutated %s%s); kernel drops %s; "
              "the valid client: %s calls, %s ok, longest wait %.1f ms; forged NEXTs that ran: %s\n",
              transport.c_str(), grouped(random.count() + mutated.count()).c_str(),
              grouped(random.bytes() + mutated.bytes()).c_str(), seconds, grouped(random.count()).c_str(),
              mutated.summary().c_str(),
              scrubs ? (", plus " + grouped(scrubs) + " of 0xff bytes").c_str() : "",
              grouped(socket.drops).c_str(), grouped(probe.calls()).c_str(), grouped(probe.ok()).c_str(),
              probe.longest_outage_ms(), grouped(forged_runs).c_str());
}

INSTANTIATE_TEST_SUITE_P(UdpServers, DatagramAbuse, testing::ValuesIn(datagram_transports()), param_name);

}  // namespace
}  // namespace rpclab::test
