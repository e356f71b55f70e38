// The start gate: how parallel clients on this machine begin their recorded
// calls together without a guessed wait. Each client, after its warm-up,
// says it is ready and waits; the harness lets all of them go the moment
// the last one is ready. (A CLOCK_REALTIME instant, --start-at, does the
// same across machines but must be guessed long enough for the slowest
// launch, and a run of thousands of trials spent minutes waiting on it.)
//
// The protocol, two FIFOs in a folder both sides see (docs/adapters.md
// describes it for an adapter's client):
//   DIR/start-ready  each client writes one byte when it is ready;
//   DIR/start-go     the harness writes one byte per client to let them go;
//                    each client reads one.
// The harness makes both and holds each open for reading and writing, so a
// client's opens never block; a client opens start-go before it writes to
// start-ready, so the harness's bytes can never come before their reader.
#pragma once

#include <atomic>
#include <chrono>
#include <string>

namespace rpclab {

inline constexpr const char* kStartReadyFifo = "start-ready";
inline constexpr const char* kStartGoFifo = "start-go";

// The client's side: says it is ready at the gate in `dir` and waits to be
// let go, at most `within`, returning early (false) once `stop` is set.
// Throws SetupError when the gate cannot be opened or nobody lets it go in
// time.
bool wait_at_start_gate(const std::string& dir, const std::atomic<bool>& stop, std::chrono::milliseconds within);

// The harness's side, for `parties` clients. Made before the clients are
// launched; removes its FIFOs when destroyed.
class StartGate {
 public:
  StartGate(std::string dir, int parties);
  ~StartGate();
  StartGate(const StartGate&) = delete;
  StartGate& operator=(const StartGate&) = delete;

  // Counts the clients that have said they are ready; once all have, lets
  // them go. Never blocks. True once they have been let go.
  bool poll();
  // Lets them go now, however many are ready (a client that died before
  // it was ready must not hold the others until their time runs out).
  void release();
  const std::string& dir() const { return dir_; }
  bool released() const { return released_; }
  int ready() const { return ready_; }
  // The FIFO the clients say they are ready on, readable when one has
  // (for a caller's poll(2)); -1 once they have been let go.
  int ready_fd() const { return released_ ? -1 : ready_fd_; }
  // From the gate's making until it let the clients go (or until now).
  double waited_ms() const;

 private:
  void close_and_remove();

  std::string dir_;
  int parties_;
  int ready_ = 0;
  bool released_ = false;
  int ready_fd_ = -1, go_fd_ = -1;
  std::chrono::steady_clock::time_point made_, let_go_;
};

}  // namespace rpclab
