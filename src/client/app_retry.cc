#include "client/app_retry.h"

#include <algorithm>
#include <thread>

namespace rpclab {

AppRetry::AppRetry(Connect connect, AppRetryOptions options, const std::atomic<bool>& stop, Sleep sleep)
    : connect_(std::move(connect)), options_(options), stop_(stop), sleep_(std::move(sleep)) {}

RpcClient& AppRetry::client() {
  if (!client_) client_ = connect_();
  return *client_;
}

void AppRetry::call(const std::function<Attempt(RpcClient&)>& attempt, std::vector<Attempt>* attempts) {
  int backoff = options_.backoff_ms;
  for (int retry = 0;; ++retry) {
    attempts->push_back(attempt(client()));
    if (!app_retries_after(attempts->back().status.kind)) return;
    // What applications do: the old handle may hold a dead connection or a
    // reply that will never come; the next attempt, or the next call after
    // giving up, starts on a new one.
    client_.reset();
    if (retry >= options_.retries || stop_.load()) return;
    sleep_(std::chrono::milliseconds(backoff));
    backoff = std::min(backoff * 2, options_.backoff_max_ms);
    if (stop_.load()) return;
  }
}

void sleep_unless_stopped(std::chrono::milliseconds duration, const std::atomic<bool>& stop) {
  auto until = std::chrono::steady_clock::now() + duration;
  while (!stop.load()) {
    auto left = until - std::chrono::steady_clock::now();
    if (left <= std::chrono::nanoseconds(0)) return;
    std::this_thread::sleep_for(std::min<std::chrono::nanoseconds>(left, std::chrono::milliseconds(10)));
  }
}

}  // namespace rpclab
