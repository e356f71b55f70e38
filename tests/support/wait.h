// The one way tests wait: on a condition, polled, with a deadline. A bare
// sleep is a guess at how long something takes, and a loaded 2-core machine
// shared with other builds makes every guess wrong sooner or later.
#pragma once

#include <chrono>
#include <functional>
#include <thread>

namespace rpclab::test {

// Checks `condition` every `step` until it holds (true) or `limit` has
// passed (false); it is checked once more at the deadline, so a slow step
// never costs a condition that came true meanwhile.
inline bool wait_until(const std::function<bool()>& condition, std::chrono::milliseconds limit,
                       std::chrono::microseconds step = std::chrono::milliseconds(10)) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  while (!condition()) {
    if (std::chrono::steady_clock::now() >= deadline) return condition();
    std::this_thread::sleep_for(step);  // the polling interval, not a guess at a duration
  }
  return true;
}

}  // namespace rpclab::test
