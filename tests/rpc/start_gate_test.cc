// The start gate (common/start_gate.h): parallel clients pass it together,
// only once the last of them is ready, and a client never waits past a
// stop or its time.
#include "common/start_gate.h"

#include <poll.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <future>
#include <vector>

#include "common/setup_error.h"
#include "support/temp_dir.h"

namespace rpclab::test {
namespace {

using namespace std::chrono_literals;

// Polls `gate` until `done` holds or 10 s pass.
template <typename Done>
bool poll_until(StartGate& gate, Done done) {
  auto deadline = std::chrono::steady_clock::now() + 10s;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    gate.poll();
    std::this_thread::yield();
  }
  return true;
}

TEST(StartGate, EveryClientPassesOnlyOnceTheLastIsReady) {
  TempDir dir;
  StartGate gate(dir.path(), 3);
  std::atomic<bool> stop{false};
  std::atomic<int> passed{0};
  auto client = [&] {
    bool went = wait_at_start_gate(dir.path(), stop, 10s);
    ++passed;
    return went;
  };
  std::vector<std::future<bool>> clients;
  clients.push_back(std::async(std::launch::async, client));
  clients.push_back(std::async(std::launch::async, client));
  ASSERT_TRUE(poll_until(gate, [&] { return gate.ready() == 2; }));
  // Two of three are ready: the gate holds them.
  for (int i = 0; i < 100; ++i) EXPECT_FALSE(gate.poll());
  EXPECT_EQ(passed.load(), 0);
  EXPECT_EQ(clients[0].wait_for(50ms), std::future_status::timeout);
  clients.push_back(std::async(std::launch::async, client));
  ASSERT_TRUE(poll_until(gate, [&] { return gate.released(); }));
  for (auto& c : clients) EXPECT_TRUE(c.get());
  EXPECT_EQ(passed.load(), 3);
  EXPECT_EQ(gate.ready(), 3);
  EXPECT_GT(gate.waited_ms(), 0);
}

TEST(StartGate, ReleasedEarlyItLetsTheReadyOnesGo) {
  TempDir dir;
  StartGate gate(dir.path(), 2);
  std::atomic<bool> stop{false};
  auto one = std::async(std::launch::async, [&] { return wait_at_start_gate(dir.path(), stop, 10s); });
  ASSERT_TRUE(poll_until(gate, [&] { return gate.ready() == 1; }));
  gate.release();  // the other client died before it was ready
  EXPECT_TRUE(one.get());
}

// The harness waits on its clients with poll(2) and the gate's ready FIFO
// among the descriptors: a client saying it is ready must wake that wait
// at once (not at its next 5 ms pass), and a released gate has none.
TEST(StartGate, ItsReadyFifoWakesAPollWhenAClientIsReady) {
  TempDir dir;
  StartGate gate(dir.path(), 2);
  pollfd idle{gate.ready_fd(), POLLIN, 0};
  ASSERT_GE(idle.fd, 0);
  EXPECT_EQ(::poll(&idle, 1, 0), 0) << "nobody is ready yet";
  std::atomic<bool> stop{false};
  auto one = std::async(std::launch::async, [&] { return wait_at_start_gate(dir.path(), stop, 10s); });
  pollfd ready{gate.ready_fd(), POLLIN, 0};
  ASSERT_EQ(::poll(&ready, 1, 10000), 1) << "the client's ready byte wakes the wait";
  EXPECT_FALSE(gate.poll());
  EXPECT_EQ(gate.ready(), 1);
  pollfd drained{gate.ready_fd(), POLLIN, 0};
  EXPECT_EQ(::poll(&drained, 1, 0), 0) << "what poll() read wakes nothing again";
  auto two = std::async(std::launch::async, [&] { return wait_at_start_gate(dir.path(), stop, 10s); });
  ASSERT_EQ(::poll(&drained, 1, 10000), 1);
  EXPECT_TRUE(gate.poll());
  EXPECT_EQ(gate.ready_fd(), -1) << "let go: nothing left to wait for";
  EXPECT_TRUE(one.get());
  EXPECT_TRUE(two.get());
}

TEST(StartGate, AStoppedOrUnopenedWaitEndsAndAMissingGateIsAnError) {
  TempDir dir;
  std::atomic<bool> stop{false};
  {
    StartGate gate(dir.path(), 2);
    auto stopped = std::async(std::launch::async, [&] { return wait_at_start_gate(dir.path(), stop, 10s); });
    ASSERT_TRUE(poll_until(gate, [&] { return gate.ready() == 1; }));
    stop = true;  // SIGTERM while waiting
    EXPECT_FALSE(stopped.get());
    stop = false;
    EXPECT_THROW(wait_at_start_gate(dir.path(), stop, 100ms), SetupError);  // nobody lets it go
  }
  // The gate's FIFOs went with it.
  EXPECT_FALSE(std::filesystem::exists(dir.file(kStartGoFifo)));
  EXPECT_FALSE(std::filesystem::exists(dir.file(kStartReadyFifo)));
  EXPECT_THROW(wait_at_start_gate(dir.path(), stop, 100ms), SetupError);
  EXPECT_THROW(StartGate(dir.file("no-such-folder"), 2), SetupError);
}

}  // namespace
}  // namespace rpclab::test
