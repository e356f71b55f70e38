// rpclab-nfs-client's UDP call against stale replies, on real sockets: a
// scripted NFS server on 127.0.0.1 answers each MKDIR datagram with the
// replies a test lays out (stale ones with another XID, duplicates of
// earlier calls' replies, its own late), and the client's calls are
// judged by what they were told and when.
#include <arpa/inet.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "common/inet.h"
#include "nfs/nfs3_client.h"
#include "support/wait.h"

namespace rpclab::nfs {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr uint32_t kOk = 0, kExist = 17;  // NFS3_OK, NFS3ERR_EXIST

// One datagram the server sends back: a MKDIR3res of `status` with `xid`,
// `delay_ms` after the request it answers arrived.
struct ScriptedReply {
  uint32_t xid;
  uint32_t status;
  int delay_ms;
};

class ScriptedServer {
 public:
  // `script(xid, copy)`: the replies to the copy-th datagram (1, 2, ...)
  // that carried `xid`.
  using Script = std::function<std::vector<ScriptedReply>(uint32_t xid, int copy)>;

  explicit ScriptedServer(Script script) : script_(std::move(script)) {
    fd_ = bind_socket(SOCK_DGRAM, "127.0.0.1", 0);
    port_ = bound_port(fd_);
    thread_ = std::thread([this] { serve(); });
  }
  ~ScriptedServer() {
    stop_ = true;
    thread_.join();
    ::close(fd_);
  }
  uint16_t port() const { return port_; }
  int requests() const { return requests_; }
  bool wait_for_requests(int n, milliseconds within) const {
    return test::wait_until([&] { return requests_ >= n; }, within);
  }

 private:
  struct Pending {
    Clock::time_point due;
    std::vector<uint32_t> words;
    sockaddr_in to;
  };

  static std::vector<uint32_t> mkdir_reply(uint32_t xid, uint32_t status) {
    // xid, REPLY, MSG_ACCEPTED, verifier AUTH_NONE of length 0, SUCCESS,
    // then MKDIR3res: the status, then (no handle, no attributes, empty
    // wcc_data) for NFS3_OK, (empty wcc_data) for a failure.
    std::vector<uint32_t> w = {xid, 1, 0, 0, 0, 0, status};
    w.insert(w.end(), status == kOk ? 4 : 2, 0);
    return w;
  }

  void serve() {
    std::vector<Pending> pending;
    std::map<uint32_t, int> copies;
    while (!stop_) {
      auto now = Clock::now();
      for (auto it = pending.begin(); it != pending.end();) {
        if (it->due > now) {
          ++it;
          continue;
        }
        std::vector<uint32_t> be;
        for (uint32_t w : it->words) be.push_back(htonl(w));
        ::sendto(fd_, be.data(), be.size() * 4, 0, reinterpret_cast<sockaddr*>(&it->to), sizeof it->to);
        it = pending.erase(it);
      }
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 1) <= 0) continue;
      unsigned char buf[2048];
      sockaddr_in from{};
      socklen_t len = sizeof from;
      ssize_t n = ::recvfrom(fd_, buf, sizeof buf, 0, reinterpret_cast<sockaddr*>(&from), &len);
      if (n < 8) continue;
      uint32_t xid = 0;
      std::memcpy(&xid, buf, 4);
      xid = ntohl(xid);
      ++requests_;
      for (const ScriptedReply& r : script_(xid, ++copies[xid]))
        pending.push_back({Clock::now() + milliseconds(r.delay_ms), mkdir_reply(r.xid, r.status), from});
    }
  }

  Script script_;
  int fd_ = -1;
  uint16_t port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> requests_{0};
  std::thread thread_;
};

Nfs3Options udp_options(uint16_t port, bool raw) {
  Nfs3Options o;
  o.host = "127.0.0.1";
  o.nfs_port = port;
  o.transport = "udp";
  o.timeout_ms = 3000;
  o.retransmit_ms = 1000;
  o.raw_clnt_dg = raw;
  return o;
}

// Each call's first datagram gets three replies with another XID at once
// and its own NFS3_OK 200 ms later; repeats of an XID get nothing (as a
// server with a reply cache drops a request still in progress).
std::vector<ScriptedReply> three_stale_then_own(uint32_t xid, int copy) {
  if (copy > 1) return {};
  return {{xid ^ 0x80000000u, kExist, 0}, {xid ^ 0x80000000u, kExist, 0}, {xid ^ 0x80000000u, kExist, 0},
          {xid, kOk, 200}};
}

const std::vector<char> kRoot = {1, 2, 3, 4, 5, 6, 7, 8};

// What libtirpc 1.3.3's clnt_dg does, which the guard exists for: each
// stale reply resends and costs a whole retransmit interval, so three end
// a 3000 ms call as RPC_TIMEDOUT long before 3000 ms (here before its own
// reply, due at 200 ms). If a later libtirpc stops doing this, this test
// says so and the guard can go.
TEST(Nfs3ClientUdp, RawClntDgTimesOutEarlyOnThreeStaleReplies) {
  ScriptedServer server(three_stale_then_own);
  Nfs3Client client(udp_options(server.port(), /*raw=*/true), kRoot);
  auto t0 = Clock::now();
  Nfs3Reply r = client.call(NfsOp::kMkdir, "c1-s1");
  auto took = std::chrono::duration_cast<milliseconds>(Clock::now() - t0).count();
  EXPECT_EQ(r.rpc, "timeout");
  EXPECT_LT(took, 200) << "clnt_dg waited for the call's own reply";
  EXPECT_EQ(r.early_timeouts, 0u);  // raw: no guard counts
  // The first send and one resend for each of the first two stale replies.
  EXPECT_TRUE(server.wait_for_requests(3, milliseconds(2000))) << server.requests();
  EXPECT_EQ(server.requests(), 3);
}

TEST(Nfs3ClientUdp, GuardedCallNeverSeesStaleRepliesAndWaitsForItsOwn) {
  ScriptedServer server(three_stale_then_own);
  Nfs3Client client(udp_options(server.port(), /*raw=*/false), kRoot);
  auto t0 = Clock::now();
  Nfs3Reply r = client.call(NfsOp::kMkdir, "c1-s1");
  auto took = std::chrono::duration_cast<milliseconds>(Clock::now() - t0).count();
  EXPECT_EQ(r.rpc, "ok") << r.detail;
  ASSERT_TRUE(r.nfs.has_value());
  EXPECT_EQ(*r.nfs, "NFS3_OK");
  EXPECT_EQ(r.early_timeouts, 0u);  // the socket filter kept the stale replies from clnt_dg
  EXPECT_GE(took, 190);
  EXPECT_LT(took, 1000);            // no retransmission was needed
  EXPECT_EQ(server.requests(), 1);  // nor made: no resend on a stale reply
}

// The call record's `xid` is the one the call went out with: the server
// saw it on every copy (here a first send the server ignores, and the
// retransmission it answers), guarded and raw.
TEST(Nfs3ClientUdp, TheReplysXidIsTheOneTheCallWentOutWith) {
  for (bool raw : {false, true}) {
    std::atomic<uint32_t> seen{0};
    ScriptedServer server([&seen](uint32_t xid, int copy) {
      seen = xid;
      return copy == 1 ? std::vector<ScriptedReply>{} : std::vector<ScriptedReply>{{xid, kOk, 0}};
    });
    Nfs3Options o = udp_options(server.port(), raw);
    o.retransmit_ms = 100;
    Nfs3Client client(o, kRoot);
    for (int call = 0; call < 2; ++call) {
      Nfs3Reply r = client.call(NfsOp::kMkdir, "c1-s" + std::to_string(call));
      EXPECT_EQ(r.rpc, "ok") << r.detail;
      ASSERT_TRUE(r.xid.has_value());
      EXPECT_EQ(*r.xid, seen.load()) << (raw ? "raw" : "guarded") << " call " << call;
    }
  }
}

TEST(Nfs3ClientUdp, GuardedCallStillTimesOutAtItsDeadline) {
  ScriptedServer server([](uint32_t, int) { return std::vector<ScriptedReply>{}; });  // never answers
  Nfs3Options o = udp_options(server.port(), /*raw=*/false);
  o.timeout_ms = 600;
  o.retransmit_ms = 200;
  Nfs3Client client(o, kRoot);
  auto t0 = Clock::now();
  Nfs3Reply r = client.call(NfsOp::kMkdir, "c1-s1");
  auto took = std::chrono::duration_cast<milliseconds>(Clock::now() - t0).count();
  EXPECT_EQ(r.rpc, "timeout");
  EXPECT_EQ(r.early_timeouts, 0u);
  EXPECT_GE(took, 590);
  EXPECT_LT(took, 1500);
  EXPECT_EQ(server.requests(), 3);  // at 0, 200, 400 ms
}

// A server without a reply cache behind a link that duplicates every
// request: each datagram is executed, NFS3_OK for the first copy of an
// XID and NFS3ERR_EXIST right after it for the copy (the directory
// exists by then); here modelled as two replies to each datagram.
std::vector<ScriptedReply> executed_twice(uint32_t xid, int copy) {
  if (copy == 1) return {{xid, kOk, 0}, {xid, kExist, 0}};
  return {{xid, kExist, 0}, {xid, kExist, 0}};
}

int timeouts_of_twenty(uint16_t port, bool raw, uint32_t* stale) {
  Nfs3Client client(udp_options(port, raw), kRoot);
  int timeouts = 0;
  for (int seq = 1; seq <= 20; ++seq) {
    Nfs3Reply r = client.call(NfsOp::kMkdir, "c1-s" + std::to_string(seq));
    if (r.rpc == "timeout") ++timeouts;
    else EXPECT_EQ(r.nfs.value_or("none"), "NFS3_OK") << "seq " << seq << ": " << r.detail;
    *stale += r.stale_replies;
  }
  return timeouts;
}

TEST(Nfs3ClientUdp, RawClntDgStormsOnDuplicateRepliesOfEarlierCalls) {
  ScriptedServer server(executed_twice);
  uint32_t stale = 0;
  EXPECT_GT(timeouts_of_twenty(server.port(), /*raw=*/true, &stale), 0);
  EXPECT_GT(server.requests(), 20);  // resends on stale replies
}

TEST(Nfs3ClientUdp, GuardedClientGetsEveryReplyPastDuplicatesOfEarlierCalls) {
  ScriptedServer server(executed_twice);
  uint32_t stale = 0;
  EXPECT_EQ(timeouts_of_twenty(server.port(), /*raw=*/false, &stale), 0);
  EXPECT_EQ(server.requests(), 20);  // each call sent once: no resend on a stale reply
}

}  // namespace
}  // namespace rpclab::nfs
