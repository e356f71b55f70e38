#include "common/start_gate.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <algorithm>
#include <cstring>
#include <string>

#include "common/setup_error.h"

namespace rpclab {
namespace {

std::string errno_text() { return std::strerror(errno); }

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

}  // namespace

bool wait_at_start_gate(const std::string& dir, const std::atomic<bool>& stop, std::chrono::milliseconds within) {
  std::string go_path = dir + "/" + kStartGoFifo, ready_path = dir + "/" + kStartReadyFifo;
  // Open the way out first: a reader must exist before the harness can
  // count this client ready and write its byte.
  Fd go(::open(go_path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
  if (go.get() < 0) throw SetupError("cannot open the start gate " + go_path + ": " + errno_text());
  {
    Fd ready(::open(ready_path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC));
    if (ready.get() < 0) throw SetupError("cannot open the start gate " + ready_path + ": " + errno_text());
    char byte = 'r';
    if (::write(ready.get(), &byte, 1) != 1) throw SetupError("cannot say ready at " + ready_path + ": " + errno_text());
  }
  auto deadline = std::chrono::steady_clock::now() + within;
  while (!stop.load()) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0)
      throw SetupError("the start gate " + dir + " did not open within " + std::to_string(within.count()) + " ms");
    // In slices, so a stop (SIGTERM) is seen while waiting.
    pollfd p{go.get(), POLLIN, 0};
    int n = ::poll(&p, 1, static_cast<int>(std::min<long>(left.count(), 100)));
    if (n < 0 && errno != EINTR) throw SetupError("poll on the start gate: " + errno_text());
    if (n <= 0) continue;
    char byte;
    ssize_t got = ::read(go.get(), &byte, 1);
    if (got == 1) return true;
    // Another client took the byte this poll saw: wait for the next.
    if (got < 0 && (errno == EAGAIN || errno == EINTR)) continue;
    if (got == 0) throw SetupError("the start gate " + go_path + " was closed without letting the client go");
    throw SetupError("reading the start gate: " + errno_text());
  }
  return false;
}

StartGate::StartGate(std::string dir, int parties)
    : dir_(std::move(dir)), parties_(parties), made_(std::chrono::steady_clock::now()) {
  for (const char* name : {kStartReadyFifo, kStartGoFifo}) {
    std::string path = dir_ + "/" + name;
    if (::mkfifo(path.c_str(), 0600) != 0) throw SetupError("cannot make the start gate " + path + ": " + errno_text());
  }
  // Read and write: on Linux such an open of a FIFO never blocks, and with
  // this end held, neither does a client's.
  ready_fd_ = ::open((dir_ + "/" + kStartReadyFifo).c_str(), O_RDWR | O_NONBLOCK | O_CLOEXEC);
  go_fd_ = ::open((dir_ + "/" + kStartGoFifo).c_str(), O_RDWR | O_NONBLOCK | O_CLOEXEC);
  if (ready_fd_ < 0 || go_fd_ < 0) {
    std::string why = errno_text();
    close_and_remove();
    throw SetupError("cannot open the start gate in " + dir_ + ": " + why);
  }
}

StartGate::~StartGate() { close_and_remove(); }

void StartGate::close_and_remove() {
  if (ready_fd_ >= 0) ::close(ready_fd_);
  if (go_fd_ >= 0) ::close(go_fd_);
  ready_fd_ = go_fd_ = -1;
  for (const char* name : {kStartReadyFifo, kStartGoFifo}) ::unlink((dir_ + "/" + name).c_str());
}

bool StartGate::poll() {
  if (released_) return true;
  char bytes[64];
  for (ssize_t got; (got = ::read(ready_fd_, bytes, sizeof bytes)) > 0;) ready_ += static_cast<int>(got);
  if (ready_ >= parties_) release();
  return released_;
}

void StartGate::release() {
  if (released_) return;
  // One byte per client in one write (at most PIPE_BUF: atomic), so every
  // waiting client wakes on the same write.
  std::string go(static_cast<size_t>(parties_), 'g');
  ssize_t put = ::write(go_fd_, go.data(), go.size());
  if (put != static_cast<ssize_t>(go.size())) throw SetupError("cannot open the start gate in " + dir_ + ": " + errno_text());
  released_ = true;
  let_go_ = std::chrono::steady_clock::now();
}

double StartGate::waited_ms() const {
  auto until = released_ ? let_go_ : std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::milli>(until - made_).count();
}

}  // namespace rpclab
