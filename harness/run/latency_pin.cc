#include "harness/run/latency_pin.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdint>
#include <cstring>

namespace rpclab::harness {

DmaLatencyHold::DmaLatencyHold() {
  int fd = ::open("/dev/cpu_dma_latency", O_WRONLY | O_CLOEXEC);
  if (fd < 0) {
    why_not_ = std::string("cannot open /dev/cpu_dma_latency: ") + std::strerror(errno) +
               (errno == EACCES ? " (needs root)" : "");
    return;
  }
  int32_t zero = 0;
  if (::write(fd, &zero, sizeof zero) != sizeof zero) {
    why_not_ = std::string("cannot write /dev/cpu_dma_latency: ") + std::strerror(errno);
    ::close(fd);
    return;
  }
  fd_ = fd;
}

DmaLatencyHold::~DmaLatencyHold() {
  if (fd_ >= 0) ::close(fd_);
}

namespace {
struct LatencyHold : RunHold {
  DmaLatencyHold pin;
};
}  // namespace

std::unique_ptr<RunHold> hold_latency_for_timing(CellEnvironment& env, RunMetadata& metadata,
                                                 const std::string& command) {
  auto hold = std::make_unique<LatencyHold>();
  env.latency_pinned = hold->pin.held();
  metadata.latency_pinned = hold->pin.held();
  metadata.latency_pin_note = hold->pin.held() ? "/dev/cpu_dma_latency held at 0" : hold->pin.why_not();
  std::fprintf(stderr, "%s: %s\n", command.c_str(),
               hold->pin.held() ? "holding /dev/cpu_dma_latency at 0 for the run"
                                : ("NOT holding /dev/cpu_dma_latency (" + hold->pin.why_not() +
                                   "): timings include idle wake-ups").c_str());
  return hold;
}

}  // namespace rpclab::harness
