// One end of an NFS cell's link as a pcap file (--pcap; `rpclab nfs`
// keeps both ends, client.pcap and server.pcap): tcpdump in that end's
// namespace on its veth, every packet both ways, whole, written packet by
// packet. A packet socket sees what an end sends after nftables' egress
// hook and the qdisc (netem), and what it receives before tc's and
// nftables' ingress: so a copy made at the sender's egress is captured,
// a drop at the receiver's ingress is captured before it, and a netem
// drop at the sender is captured at neither end (docs/nfs.md, "Where each
// fault strikes"). Started before the server and the clients, stopped
// (SIGINT, so tcpdump ends the file) once the clients have ended and
// before the namespaces go. Read it with `tcpdump -r OUT/client.pcap -nn
// -tt`, which decodes NFS and MOUNT.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "netem/topology/topology.h"
#include "process/child_process.h"
#include "process/command_log.h"

namespace rpclab::harness::nfs {

std::string tcpdump_missing();  // "" when tcpdump is there, else why and how to install it

class EndPcap {
 public:
  // Returns once tcpdump says it is listening; throws std::runtime_error
  // (tcpdump missing, or it ended or did not listen within `ready_within`,
  // with its own words).
  EndPcap(const netem::Host& end, const std::string& path, process::CommandLog& log,
          std::chrono::milliseconds ready_within = std::chrono::seconds(10));
  ~EndPcap();  // stop() if not yet
  EndPcap(const EndPcap&) = delete;
  EndPcap& operator=(const EndPcap&) = delete;

  // Ends the capture and returns tcpdump's summary ("N packets captured",
  // "M packets dropped by kernel"), or why it did not end cleanly.
  std::string stop();
  const std::string& path() const { return path_; }

 private:
  std::string stderr_text() const;

  std::string path_;
  std::string stderr_path_;
  std::unique_ptr<process::ChildProcess> tcpdump_;
  std::string summary_;
};

// The createmode of every NFSv3 CREATE call over UDP in a capture of the
// client's end (Ethernet, IPv4): {"EXCLUSIVE": 15, "GUARDED": 2}, each
// request packet counted (a retransmission too, and a copy the link's
// `dup` made: it leaves the client's veth as a packet of its own). TCP is not read (its record
// marking may split a call): {} then. Throws std::runtime_error for a file
// that is not a classic pcap.
std::map<std::string, uint64_t> create_modes_in(const std::string& pcap_path);

}  // namespace rpclab::harness::nfs
