// The wire capture's eBPF backend: wire_capture.bpf.c, loaded and attached
// in the calling thread's network namespace (tcx egress of the client's
// device, netfilter IPv4 pre-routing), and its ring buffer read into a
// Wire. Linux 6.6 or later (tcx); WireCapture falls back to nflog where
// the kernel refuses. Detached when this object goes, or with the
// namespace, or with the process: nothing stays on the host.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

#include "harness/causes/attribution.h"

namespace rpclab::harness {

class BpfWireError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class BpfWire {
 public:
  // Throws BpfWireError saying what the kernel or libbpf refused.
  BpfWire(const std::string& ifname, uint16_t server_port, uint16_t fence_port);
  ~BpfWire();
  BpfWire(const BpfWire&) = delete;
  BpfWire& operator=(const BpfWire&) = delete;

  // Waits up to `timeout_ms` for the fence, then appends what the ring
  // holds to `wire`, in the order the hooks ran, a copy after the
  // transmission it copies. True once the fence has been read.
  bool read(int timeout_ms, Wire& wire);
  uint64_t lost() const;  // events the ring had no room for

  static constexpr const char* kAttached = "tcx egress and netfilter ipv4 pre-routing";

 private:
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace rpclab::harness
