// The client's end of a two-host link, recorded for the attribution: an
// nftables netdev table on the client's veth logs each request as the
// client sent it (egress, before the fault chains, and not the copies
// `dup` makes) and each reply as it arrived (ingress, after the fault
// chains, so a dropped reply is not in it) to an NFLOG group, and a thread
// in the client's namespace reads the group with libpcap ("nflog:N").
// A loopback cell in a namespace of its own gets the same table on that
// namespace's lo: a datagram between two sockets there passes lo's egress
// hook once as it is sent and its ingress hook once as it arrives, so the
// egress rule (to the server's port) sees each request as sent and the
// ingress rule (from it) each reply as it reached the client.
//
// A capture that cannot start (no root, no nfnetlink_log, libpcap refuses)
// leaves the cell running: `missing()` says why, and the attribution
// leaves what needs the wire unexplained.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>

struct pcap;

#include "harness/attribution.h"
#include "netem/command_log.h"
#include "netem/topology.h"

namespace rpclab::harness {

class WireCapture {
 public:
  // Starts capturing the UDP datagrams to and from `server_port` on the
  // client's end, and returns once the capture is reading.
  WireCapture(const netem::Host& client, const std::string& server_address, uint16_t server_port,
              netem::CommandLog& log);
  ~WireCapture();  // stops it if stop() was not called
  WireCapture(const WireCapture&) = delete;
  WireCapture& operator=(const WireCapture&) = delete;

  // Sends the fence, reads up to it (everything logged before it), stops
  // the thread, removes the table. Without the fence within 3 s the wire
  // counts one drop: its end is not known to be complete.
  void stop();
  const std::string& missing() const { return missing_; }  // "" when it ran
  const Wire& wire() const { return wire_; }

  static constexpr const char* kTable = "rpclab_wire";
  static constexpr int kGroup = 4113;  // NFLOG group, per namespace
  static constexpr uint16_t kFencePort = 9;  // discard: the fence datagram's destination

 private:
  void read_loop(struct pcap* p);
  void remove_table();

  netem::Host client_;
  std::string server_address_;
  uint16_t server_port_;
  netem::CommandLog& log_;
  std::string missing_;
  Wire wire_;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  bool fence_seen_ = false;  // the reading thread's own
  bool table_ = false;
};

}  // namespace rpclab::harness
