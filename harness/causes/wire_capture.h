// The client's end of a two-host link, recorded for the attribution: each
// request as the client sent it, before the fault rules (and the copies
// `dup` makes, told apart by their mark), and each reply as it arrived,
// after them, so a dropped reply is not in it. Two backends, the cheaper
// first:
//
//   bpf    eBPF programs on the client's device and namespace writing to a
//          ring buffer (wire_bpf.h): Linux 6.6 or later;
//   nflog  an nftables netdev table on the client's veth logging each
//          request at egress, before the fault chains, and each reply at
//          ingress, after them, to an NFLOG group a thread in the client's
//          namespace reads with libpcap ("nflog:N"): ~1 us a packet more.
//
// A loopback cell in a namespace of its own gets the same on that
// namespace's lo: a datagram between two sockets there passes lo's egress
// hook once as it is sent and its ingress hook once as it arrives, so
// requests are seen as sent (to the server's port) and replies as they
// reached the client (from it).
//
// A capture that cannot start (no root, neither backend works) leaves the
// cell running: `missing()` says why, and the attribution leaves what
// needs the wire unexplained.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>

struct pcap;

namespace rpclab::harness {
class BpfWire;
}

#include "harness/causes/attribution.h"
#include "process/command_log.h"
#include "netem/topology/topology.h"

namespace rpclab::harness {

class WireCapture {
 public:
  // --wire-capture: "on" takes the cheaper backend that works; "bpf" and
  // "nflog" take only that one (to test or measure it); "off", none.
  static constexpr const char* kChoices[] = {"on", "bpf", "nflog", "off"};

  // Starts capturing the UDP datagrams to and from `server_port` on the
  // client's end with `choice` (not "off"), and returns once the capture
  // is reading.
  WireCapture(const netem::Host& client, const std::string& server_address, uint16_t server_port,
              const std::string& choice, process::CommandLog& log);
  ~WireCapture();  // stops it if stop() was not called
  WireCapture(const WireCapture&) = delete;
  WireCapture& operator=(const WireCapture&) = delete;

  // Sends the fence, reads up to it (everything logged before it), stops
  // the thread, removes the table. Without the fence within 3 s the wire
  // counts one drop: its end is not known to be complete.
  void stop();
  const std::string& missing() const { return missing_; }  // "" when it ran
  // Which backend ran: "bpf", "nflog", or "nflog (no eBPF: <why>)".
  const std::string& backend() const { return backend_; }
  const Wire& wire() const { return wire_; }

  static constexpr const char* kTable = "rpclab_wire";
  static constexpr int kGroup = 4113;  // NFLOG group, per namespace
  static constexpr uint16_t kFencePort = 9;  // discard: the fence datagram's destination

 private:
  std::string start_bpf();
  std::string start_nflog();
  std::string in_client_namespace(std::function<std::string()> start, std::function<void()> read);
  void read_until_fence(const std::function<void(int timeout_ms)>& read_some);
  void read_nflog(struct pcap* p);
  void remove_table();

  netem::Host client_;
  std::string server_address_;
  uint16_t server_port_;
  process::CommandLog& log_;
  std::string missing_;
  std::string backend_;
  Wire wire_;
  std::unique_ptr<BpfWire> bpf_;  // the reading thread's, with the bpf backend
  std::thread thread_;
  std::atomic<bool> stop_{false};
  bool fence_seen_ = false;  // the reading thread's own
  bool table_ = false;
};

}  // namespace rpclab::harness
