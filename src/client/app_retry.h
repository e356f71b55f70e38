// The retry loop applications write around a call, once for every
// transport: make the call; after an outcome app_retries_after() names
// (a timeout, a broken connection), drop the handle, wait, make a new one
// and send the same call again (the same client id and seq, so the server
// can tell it is a repeat); after K retries, give up with the last error.
// The wait starts at backoff_ms and doubles up to backoff_max_ms.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <vector>

#include "transport/retry_policy.h"
#include "transport/transport.h"

namespace rpclab {

// One attempt, as the caller timed it.
struct Attempt {
  CallStatus status;
  int64_t start_ns = 0;    // from the record's start
  int64_t latency_ns = 0;
};

class AppRetry {
 public:
  using Connect = std::function<std::unique_ptr<RpcClient>()>;  // a new handle (connect_client)
  using Sleep = std::function<void(std::chrono::milliseconds)>;

  // `sleep` waits out a backoff (a test passes a fake); `stop` ends the
  // loop early, keeping the attempts made so far.
  AppRetry(Connect connect, AppRetryOptions options, const std::atomic<bool>& stop, Sleep sleep);

  RpcClient& client();  // the current handle, made on first use
  // One call: `attempt` on the current handle, then on a new one after each
  // outcome worth retrying. Every attempt is appended to `attempts`; the
  // last one's status is what the application is told.
  void call(const std::function<Attempt(RpcClient&)>& attempt, std::vector<Attempt>* attempts);

 private:
  Connect connect_;
  AppRetryOptions options_;
  const std::atomic<bool>& stop_;
  Sleep sleep_;
  std::unique_ptr<RpcClient> client_;
};

// Sleeps `duration` in short steps, returning early once `stop` is set.
void sleep_unless_stopped(std::chrono::milliseconds duration, const std::atomic<bool>& stop);

}  // namespace rpclab
