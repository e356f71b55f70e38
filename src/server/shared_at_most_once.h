// The shared at-most-once table (--at-most-once-shared HOST:PORT): the
// per-server table's rule (at_most_once.h) kept in a Redis that every
// replica behind a proxy or load balancer is given, so a repeat the proxy
// sends to another replica is still answered from the table.
//
// One hash per client, `rpclab:amo:<client id>`: the last completed seq and
// its reply (status, expected_seq, times_executed), and the claim on the
// call being run (seq, owner, lease expiry by Redis's own clock). Each step
// is one Lua script, so one atomic round trip:
// - claim: the last completed seq is a repeat, an older one stale; a seq
//   that another server holds an unexpired claim on (or on a newer seq)
//   waits, polling every millisecond with ServerCore's lock let go, until
//   that claim completes (then a repeat) or its lease runs out (then this
//   server takes it over and runs the call); else the claim is taken.
// - complete: after the journal's seal, newer seqs replace the entry and
//   the claim is released; release gives the claim back without an entry.
//
// What the lease cannot cover: a server that stalls (or dies between its
// seal and its complete) for longer than the lease; the call then runs
// again elsewhere. Redis is the table, so a restart rebuilds nothing here.
//
// Used under ServerCore's lock (the hiredis connection is not
// thread-safe); one table per ServerCore.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "server/at_most_once_scope.h"

struct redisContext;
struct redisReply;

namespace rpclab {

class SharedAtMostOnceTable : public AtMostOnceScope {
 public:
  static constexpr int kDefaultLeaseMs = 2000;
  static constexpr int kTimeoutMs = 2000;  // connect, and each round trip
  static constexpr const char* kKeyPrefix = "rpclab:amo:";

  // Connects to the Redis at host:port and loads the scripts, within
  // kTimeoutMs each. Throws SetupError naming the address and what to do.
  // `instance` names this server in its claims: unique per table unless
  // given.
  SharedAtMostOnceTable(const std::string& host, uint16_t port, int lease_ms, std::string instance = "");
  ~SharedAtMostOnceTable() override;
  SharedAtMostOnceTable(const SharedAtMostOnceTable&) = delete;
  SharedAtMostOnceTable& operator=(const SharedAtMostOnceTable&) = delete;

  Answer claim(uint32_t client_id, uint32_t seq, std::unique_lock<std::mutex>& core_lock) override;
  void complete(uint32_t client_id, uint32_t seq, const NextReply& reply) override;
  void release(uint32_t client_id, uint32_t seq) override;
  // Redis is the table: the journal of one replica must not overwrite it.
  void recover(uint32_t, uint32_t, const NextReply&) override {}

  const std::string& instance() const { return instance_; }
  uint64_t waits() const { return waits_.load(); }          // polls while another server held the claim
  uint64_t takeovers() const { return takeovers_.load(); }  // claims taken over after their lease

 private:
  struct Script {
    const char* body;
    std::string sha;
  };
  struct ReplyFree {
    void operator()(redisReply* r) const;
  };
  using Reply = std::unique_ptr<redisReply, ReplyFree>;

  bool connect(std::string* why);
  Reply command(const std::vector<std::string>& words);
  Reply eval(const Script& script, uint32_t client_id, const std::vector<std::string>& args);
  [[noreturn]] void fail(const std::string& what) const;

  std::string host_;
  uint16_t port_;
  std::string address_;  // HOST:PORT, for messages
  int lease_ms_;
  std::string instance_;
  redisContext* ctx_ = nullptr;
  Script claim_, complete_;  // complete_ also releases
  std::atomic<uint64_t> waits_{0};
  std::atomic<uint64_t> takeovers_{0};
};

}  // namespace rpclab
