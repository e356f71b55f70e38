#include "harness/speed/latency_pin.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
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

}  // namespace rpclab::harness
