// The valid client of the wire-abuse tests: NEXT calls under one client id,
// made in this process through the same library the programs use, while
// the server is being abused. It keeps what it needs to check the server's
// ledger afterwards and the longest time the service stopped.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "server/ledger.h"
#include "transport/transport.h"

namespace rpclab::test {

// The probe's client id. Every NEXT the tests forge names a client id below
// 256, and a mutation flips at most 4 bits, so a forged call that decodes
// as NEXT carries an id at least 20 bits away from this one. The ledger
// tells the probe's executions from the garbage's by id alone.
inline constexpr uint32_t kProbeClient = 0xffffff5a;

class Probe {
 public:
  // A persistent client; `timeout_ms` bounds each call. Over sunrpc-udp the
  // retransmit interval equals the timeout, so the probe never sends a call
  // twice (that would be Levy's duplicate, not the garbage's doing).
  Probe(const std::string& transport, uint16_t port, int timeout_ms, uint32_t client_id = kProbeClient);
  ~Probe();

  bool call();  // one NEXT with the next sequence number; true if it succeeded
  // Makes one call here, so the client is connected before the test goes
  // on, then calls every `interval` from a thread of its own until stop().
  void start(std::chrono::milliseconds interval);
  void stop();

  uint64_t calls() const;
  uint64_t ok() const;
  // The longest time without a successful call, from start (or the first
  // call) to stop (or the last call), in milliseconds.
  double longest_outage_ms() const;
  std::string first_failures() const;  // up to 5 failure details, for messages

  // Checks the ledger against the calls made: each successful call ran
  // exactly once, each failed one at most once, no other seq of the probe
  // ran, nothing went unrecorded. Returns how many executions belong to
  // other clients (forged calls that decoded as NEXT), for the report.
  // The probe's client id is kProbeClient unless the test gave another.
  uint64_t expect_ledger_matches(const Ledger& ledger) const;

 private:
  void note(bool ok, const std::string& detail);

  std::string transport_;
  uint32_t client_id_;
  std::unique_ptr<RpcClient> client_;
  mutable std::mutex mu_;
  std::vector<bool> ok_;  // per seq
  std::vector<std::string> failures_;
  std::chrono::steady_clock::time_point last_ok_{};
  double longest_outage_ms_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace rpclab::test
