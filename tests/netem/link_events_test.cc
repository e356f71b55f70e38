// Link events on a real two-host link: a partition drops every datagram
// both ways for as long as it lasts and the link carries them again after,
// with nftables on this kernel and with tc inside a user-mode-linux guest;
// a reset kills an established TCP connection (its peer reads ECONNRESET)
// and, with for=, refuses new ones until it ends. Timing: partitions driven
// by an EventRunner from a 5 ms wait loop, planned against actual.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <thread>

#include "netem/events/event_runner.h"
#include "netem/faults/backend_factory.h"
#include "netem/topology/topology.h"
#include "netem/topology/uml_guest.h"
#include "netem_test_util.h"
#include "netem/config/fault_events.h"

namespace rpclab::netem {
using namespace rpclab::process;  // the process layer (process/) the netem code runs on
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using testing::why_not_nftables;
using testing::why_not_our_binaries_in_uml;

constexpr uint16_t kServerPort = 7101, kClientPort = 7102;

// A socket that belongs to `netns`: made on a thread that entered it (a
// socket keeps its namespace; the test's own threads stay where they are).
int socket_in(const std::string& netns, int type) {
  int fd = -1;
  std::thread([&] {
    int ns = ::open(("/run/netns/" + netns).c_str(), O_RDONLY | O_CLOEXEC);
    if (ns >= 0 && ::setns(ns, CLONE_NEWNET) == 0) fd = ::socket(AF_INET, type | SOCK_CLOEXEC, 0);
    if (ns >= 0) ::close(ns);
  }).join();
  return fd;
}

sockaddr_in address(const std::string& ip, uint16_t port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  ::inet_pton(AF_INET, ip.c_str(), &a.sin_addr);
  return a;
}

int bound_socket(const Host& host, int type, uint16_t port) {
  int fd = socket_in(host.netns, type);
  int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in a = address(host.address, port);
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    ADD_FAILURE() << "cannot bind " << host.address << ":" << port << " in " << host.netns << ": " << std::strerror(errno);
    return -1;
  }
  return fd;
}

// Numbered datagrams both ways between the hosts.
class UdpPair {
 public:
  explicit UdpPair(const Topology& t)
      : srv_(bound_socket(t.server(), SOCK_DGRAM, kServerPort)), cli_(bound_socket(t.client(), SOCK_DGRAM, kClientPort)),
        to_srv_(address(t.server().address, kServerPort)), to_cli_(address(t.client().address, kClientPort)) {}
  ~UdpPair() {
    ::close(srv_);
    ::close(cli_);
  }
  // Sends datagram `n` each way.
  void send(uint32_t n) {
    ::sendto(cli_, &n, sizeof n, 0, reinterpret_cast<const sockaddr*>(&to_srv_), sizeof to_srv_);
    ::sendto(srv_, &n, sizeof n, 0, reinterpret_cast<const sockaddr*>(&to_cli_), sizeof to_cli_);
  }
  // Takes what has arrived; with `wait`, until nothing more comes for that long.
  void receive(std::chrono::milliseconds wait = 0ms) {
    pollfd fds[2] = {{srv_, POLLIN, 0}, {cli_, POLLIN, 0}};
    while (::poll(fds, 2, static_cast<int>(wait.count())) > 0) {
      for (int i = 0; i < 2; ++i) {
        uint32_t n;
        while (::recv(fds[i].fd, &n, sizeof n, MSG_DONTWAIT) == sizeof n) (i == 0 ? at_server : at_client).push_back(n);
      }
    }
  }
  bool arrived_both_ways(uint32_t n) const {
    auto has = [n](const std::vector<uint32_t>& v) { return std::find(v.begin(), v.end(), n) != v.end(); };
    return has(at_server) && has(at_client);
  }
  bool arrived_either_way(uint32_t n) const {
    auto has = [n](const std::vector<uint32_t>& v) { return std::find(v.begin(), v.end(), n) != v.end(); };
    return has(at_server) || has(at_client);
  }

  std::vector<uint32_t> at_server, at_client;

 private:
  int srv_, cli_;
  sockaddr_in to_srv_, to_cli_;
};

// A two-host link with a backend and no steady faults; events are applied
// by hand through their kind's own apply function.
struct Link {
  CommandLog log;
  std::unique_ptr<Topology> topology;
  std::unique_ptr<FaultBackend> backend;

  explicit Link(BackendKind kind, const FaultSpec& spec = FaultSpec{})
      : topology(Topology::create(TopologyKind::kTwoHost, log)), backend(make_backend(kind, *topology, log)) {
    backend->apply(spec);
  }
  nlohmann::json apply(const FaultEvent& event, EventPhase phase) {
    EventTargets targets{backend.get(), {}};
    return event.kind->apply(targets, event, phase);
  }
};

// A partition applied and removed by hand: nothing crosses while it is up,
// both directions are counted, and everything crosses again after.
void check_partition(BackendKind kind) {
  Link link(kind);
  UdpPair udp(*link.topology);
  FaultEvent partition = parse_event("partition at=0s for=1s");
  uint32_t n = 0;
  for (; n < 20; ++n) udp.send(n);
  udp.receive(300ms);
  for (uint32_t i = 0; i < 20; ++i) ASSERT_TRUE(udp.arrived_both_ways(i)) << "before the partition: " << i;

  nlohmann::json started = link.apply(partition, EventPhase::kStart);
  for (; n < 70; ++n) udp.send(n);
  udp.receive(300ms);
  for (uint32_t i = 20; i < 70; ++i) EXPECT_FALSE(udp.arrived_either_way(i)) << "crossed the partition: " << i;
  nlohmann::json ended = link.apply(partition, EventPhase::kEnd);
  EXPECT_EQ(ended["dropped_to_server"], 50) << ended;
  EXPECT_EQ(ended["dropped_to_client"], 50) << ended;

  for (; n < 90; ++n) udp.send(n);
  udp.receive(300ms);
  for (uint32_t i = 70; i < 90; ++i) EXPECT_TRUE(udp.arrived_both_ways(i)) << "after the partition: " << i;
  std::cout << "[ measured ] " << backend_name(kind) << " partition: start " << started << ", end " << ended << "\n";
}

TEST(PartitionLink, NftablesDropsBothWaysThenHeals) {
  if (auto why = why_not_nftables(); !why.empty()) GTEST_SKIP() << why;
  check_partition(BackendKind::kNftables);
}

// Runs only inside the guest, started by NetemInUmlGuest below.
TEST(PartitionLink, DISABLED_NetemBodyForTheGuest) { check_partition(BackendKind::kNetem); }

TEST(PartitionLink, NetemInUmlGuest) {
  if (auto why = why_not_our_binaries_in_uml(); !why.empty()) GTEST_SKIP() << why;
  char self[4096] = {};
  ASSERT_GT(::readlink("/proc/self/exe", self, sizeof self - 1), 0);
  GuestOptions o;
  o.work_dir = testing::temp_dir("partition-guest");
  o.timeout = 180s;
  o.stdout_path = o.stderr_path = o.work_dir + "/tests.out";
  CommandLog log;
  GuestRun r = run_in_guest({self, "--gtest_also_run_disabled_tests",
                             "--gtest_filter=PartitionLink.DISABLED_NetemBodyForTheGuest"}, o, log);
  ASSERT_TRUE(r.completed) << r.failure;
  std::ifstream in(o.stdout_path);
  std::string out((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(r.exit_code, 0) << out;
  EXPECT_NE(out.find("[  PASSED  ] 1 test"), std::string::npos) << out;
  for (size_t at = out.find("[ measured ]"); at != std::string::npos; at = out.find("[ measured ]", at + 1))
    std::cout << out.substr(at, out.find('\n', at) - at) << " (in the guest)\n";
}

// Partitions from an EventRunner polled every 5 ms, as a cell's wait loop
// does, with a datagram each way every 5 ms: each one sent well inside a
// partition is lost, each one sent well outside arrives, and the record's
// actual times are set beside the planned ones.
TEST(PartitionLink, TimedByTheRunnerLastsItsDuration) {
  if (auto why = why_not_nftables(); !why.empty()) GTEST_SKIP() << why;
  FaultSpec spec = parse_profile("event = partition at=300ms for=300ms every=600ms\n", "t");
  Link link(BackendKind::kNftables, spec);
  UdpPair udp(*link.topology);
  EventRunner runner(spec, {link.backend.get(), {}}, link.log);
  auto t0 = Clock::now();
  runner.start(t0);
  std::vector<double> sent_ms;
  while (Clock::now() - t0 < 3150ms) {  // five partitions: 300-600 ms, ..., 2700-3000 ms
    runner.poll();
    sent_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    udp.send(static_cast<uint32_t>(sent_ms.size() - 1));
    udp.receive();
    std::this_thread::sleep_for(5ms);  // not a wait: the sender's pace and the runner's poll, as the harness's
  }
  runner.finish();
  udp.receive(300ms);
  const nlohmann::json& record = runner.record();
  ASSERT_EQ(record.size(), 5u) << record;
  auto inside = [&](double t, double margin) {
    for (const auto& e : record)
      if (t > e["start_ms"].get<double>() + e["start"]["took_ms"].get<double>() + margin &&
          t < e["end_ms"].get<double>() - margin)
        return true;
    return false;
  };
  auto outside = [&](double t, double margin) {
    for (const auto& e : record)
      if (t > e["start_ms"].get<double>() - margin && t < e["end_ms"].get<double>() + e["end"]["took_ms"].get<double>() + margin)
        return false;
    return true;
  };
  size_t lost_inside = 0, arrived_outside = 0, n_inside = 0, n_outside = 0;
  for (uint32_t i = 0; i < sent_ms.size(); ++i) {
    if (inside(sent_ms[i], 2)) ++n_inside, lost_inside += !udp.arrived_either_way(i);
    if (outside(sent_ms[i], 2)) ++n_outside, arrived_outside += udp.arrived_both_ways(i);
  }
  EXPECT_GT(n_inside, 50u);
  EXPECT_GT(n_outside, 50u);
  EXPECT_EQ(lost_inside, n_inside) << "datagrams crossed a partition";
  EXPECT_EQ(arrived_outside, n_outside) << "datagrams lost with no partition up";
  double worst = 0, sum = 0;
  for (const auto& e : record) {
    EXPECT_GT(e["end"]["dropped_to_server"].get<uint64_t>(), 0u) << e;
    EXPECT_GT(e["end"]["dropped_to_client"].get<uint64_t>(), 0u) << e;
    for (const char* phase : {"start", "end"}) {
      double late = e[std::string(phase) + "_ms"].get<double>() - e["planned_" + std::string(phase) + "_ms"].get<double>();
      EXPECT_GE(late, 0);
      worst = std::max(worst, late);
      sum += late;
    }
    std::cout << "[ measured ] partition #" << e["occurrence"] << ": planned " << e["planned_start_ms"] << "-"
              << e["planned_end_ms"] << " ms, actual " << e["start_ms"] << "-" << e["end_ms"] << " ms, took "
              << e["start"]["took_ms"] << "/" << e["end"]["took_ms"] << " ms, dropped " << e["end"]["dropped_to_server"]
              << " to the server and " << e["end"]["dropped_to_client"] << " to the client\n";
  }
  std::cout << "[ measured ] lateness of 10 actions: mean " << sum / 10 << " ms, worst " << worst << " ms\n";
  EXPECT_LT(worst, 500) << "an action more than half a second late (the machine may be very busy)";
}

// A TCP connection across the link: a listener in the server's namespace,
// a connected socket in the client's, the accepted one.
struct TcpPair {
  int listener = -1, client = -1, accepted = -1;
  explicit TcpPair(const Topology& t, uint16_t port) {
    listener = bound_socket(t.server(), SOCK_STREAM, port);
    ::listen(listener, 8);
    client = connect_from(t, port);
    accepted = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
  }
  ~TcpPair() {
    for (int fd : {listener, client, accepted}) ::close(fd);
  }
  static int connect_from(const Topology& t, uint16_t port) {
    int fd = socket_in(t.client().netns, SOCK_STREAM);
    timeval two_s{2, 0};  // a receive, and a connect, that would hang fail instead
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &two_s, sizeof two_s);
    ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &two_s, sizeof two_s);
    sockaddr_in a = address(t.server().address, port);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
      int e = errno;
      ::close(fd);
      errno = e;
      return -1;
    }
    return fd;
  }
};

TEST(ResetLink, KillsAnEstablishedConnectionAndThePeerReadsEconnreset) {
  if (auto why = why_not_nftables(); !why.empty()) GTEST_SKIP() << why;
  Link link(BackendKind::kNftables);
  TcpPair tcp(*link.topology, 7103);
  ASSERT_GE(tcp.accepted, 0) << std::strerror(errno);
  ASSERT_EQ(::send(tcp.client, "x", 1, 0), 1);
  char c;
  ASSERT_EQ(::recv(tcp.accepted, &c, 1, 0), 1) << "the connection works before the reset";

  nlohmann::json did = link.apply(parse_event("reset at=0s"), EventPhase::kStart);
  EXPECT_EQ(did["closed_at_server"], 1) << did;
  EXPECT_FALSE(did.contains("warning")) << did;
  errno = 0;
  EXPECT_EQ(::recv(tcp.client, &c, 1, 0), -1);
  EXPECT_EQ(errno, ECONNRESET) << std::strerror(errno);
  std::cout << "[ measured ] reset: " << did << "\n";
}

TEST(ResetLink, WithADurationRefusesNewConnectionsUntilItEnds) {
  if (auto why = why_not_nftables(); !why.empty()) GTEST_SKIP() << why;
  Link link(BackendKind::kNftables);
  TcpPair tcp(*link.topology, 7104);
  ASSERT_GE(tcp.accepted, 0) << std::strerror(errno);

  FaultEvent reset = parse_event("reset at=0s for=1s");
  link.apply(reset, EventPhase::kStart);
  EXPECT_EQ(TcpPair::connect_from(*link.topology, 7104), -1);
  EXPECT_EQ(errno, ECONNREFUSED) << std::strerror(errno);
  nlohmann::json ended = link.apply(reset, EventPhase::kEnd);
  EXPECT_GE(ended["reset_to_server"].get<uint64_t>(), 1u) << ended;
  int again = TcpPair::connect_from(*link.topology, 7104);
  EXPECT_GE(again, 0) << "connections work again after the reset ends: " << std::strerror(errno);
  ::close(again);
}

}  // namespace
}  // namespace rpclab::netem
