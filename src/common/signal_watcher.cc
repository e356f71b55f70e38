#include "common/signal_watcher.h"

#include <pthread.h>
#include <signal.h>

namespace rpclab {
namespace {

sigset_t watched() {
  sigset_t set;
  sigemptyset(&set);
  for (int s : {SIGTERM, SIGINT, SIGHUP, SIGUSR1}) sigaddset(&set, s);
  return set;
}

}  // namespace

SignalWatcher::SignalWatcher(std::function<void()> on_usr1) : on_usr1_(std::move(on_usr1)) {
  // libtirpc writes replies and requests with write(2): a peer that resets
  // its connection first would kill the process with SIGPIPE. Ignored, the
  // write fails with EPIPE and libtirpc drops that connection or reports
  // the call as failed, which is what a measurement wants to see.
  ::signal(SIGPIPE, SIG_IGN);
  sigset_t set = watched();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  thread_ = std::thread([this, set] {
    for (;;) {
      int sig = sigwaitinfo(&set, nullptr);
      if (done_.load()) return;
      if (sig == SIGUSR1) {
        if (on_usr1_) on_usr1_();
      } else if (sig > 0) {
        signal_.store(sig);
        stop_.store(true);
      }
    }
  });
}

// Woken by a SIGUSR1 of its own rather than a timed wait's tick: a client
// whose calls took 4 ms spent 100 ms more here at every exit (strace), and
// a speed run starts thousands of them.
SignalWatcher::~SignalWatcher() {
  done_.store(true);
  pthread_kill(thread_.native_handle(), SIGUSR1);
  thread_.join();
}

}  // namespace rpclab
