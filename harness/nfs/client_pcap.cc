#include "harness/nfs/client_pcap.h"

#include <signal.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace rpclab::harness::nfs {

namespace {

constexpr const char* kTcpdump = "/usr/bin/tcpdump";

// Big-endian words of a packet, bounds-checked: an off-the-end read ends the packet.
struct Words {
  const unsigned char* p;
  size_t n, at = 0;
  bool ok = true;
  uint32_t next() {
    if (at + 4 > n) {
      ok = false;
      return 0;
    }
    uint32_t v = (uint32_t{p[at]} << 24) | (uint32_t{p[at + 1]} << 16) | (uint32_t{p[at + 2]} << 8) | p[at + 3];
    at += 4;
    return v;
  }
  void skip_opaque() {  // a length, then that many bytes padded to 4
    uint32_t len = next();
    at += (static_cast<size_t>(len) + 3) / 4 * 4;
    if (at > n) ok = false;
  }
};

// An NFSv3 CREATE call's createmode word in a UDP payload; -1 when it is not one.
int create_mode_of(const unsigned char* rpc, size_t n) {
  Words w{rpc, n};
  w.next();                                         // xid
  if (w.next() != 0 || w.next() != 2) return -1;    // CALL, RPC version 2
  if (w.next() != 100003 || w.next() != 3) return -1;  // NFS v3
  if (w.next() != 8) return -1;                     // NFSPROC3_CREATE
  w.next();                                         // credential flavor
  w.skip_opaque();
  w.next();                                         // verifier flavor
  w.skip_opaque();
  w.skip_opaque();                                  // the directory's handle
  w.skip_opaque();                                  // the name
  uint32_t mode = w.next();
  return w.ok ? static_cast<int>(mode) : -1;
}

}  // namespace

std::map<std::string, uint64_t> create_modes_in(const std::string& pcap_path) {
  std::ifstream in(pcap_path, std::ios::binary);
  std::string b((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto u32 = [&b](size_t at) {  // the file's own (host) order
    uint32_t v = 0;
    std::memcpy(&v, b.data() + at, 4);
    return v;
  };
  if (b.size() < 24 || u32(0) != 0xa1b2c3d4u) throw std::runtime_error(pcap_path + ": not a classic pcap file");
  if (u32(20) != 1) return {};  // not Ethernet
  static const char* const kModes[] = {"UNCHECKED", "GUARDED", "EXCLUSIVE"};
  std::map<std::string, uint64_t> modes;
  for (size_t at = 24; at + 16 <= b.size();) {
    size_t caplen = u32(at + 8);
    const auto* pkt = reinterpret_cast<const unsigned char*>(b.data() + at + 16);
    at += 16 + caplen;
    if (at > b.size()) break;
    if (caplen < 14 + 20 + 8 || pkt[12] != 0x08 || pkt[13] != 0x00) continue;  // IPv4
    const unsigned char* ip = pkt + 14;
    size_t ihl = (ip[0] & 0x0f) * 4u;
    if (ip[9] != 17 || caplen < 14 + ihl + 8) continue;  // UDP
    const unsigned char* udp = ip + ihl;
    size_t payload = caplen - 14 - ihl - 8;
    int mode = create_mode_of(udp + 8, payload);
    if (mode < 0) continue;
    ++modes[mode <= 2 ? kModes[mode] : "createmode " + std::to_string(mode)];
  }
  return modes;
}

std::string tcpdump_missing() {
  if (::access(kTcpdump, X_OK) != 0) return std::string(kTcpdump) + " is missing (apt-get install tcpdump)";
  return "";
}

EndPcap::EndPcap(const netem::Host& end, const std::string& path, process::CommandLog& log,
                 std::chrono::milliseconds ready_within)
    : path_(path), stderr_path_(path + ".tcpdump.err") {
  if (std::string why = tcpdump_missing(); !why.empty()) throw std::runtime_error("--pcap: " + why);
  if (end.netns.empty() || end.ifname.empty())
    throw std::runtime_error("--pcap: this end has no namespace and link of its own to capture on");
  process::SpawnOptions spawn;
  spawn.netns = end.netns;
  spawn.stderr_path = stderr_path_;
  // --immediate-mode: each packet reaches tcpdump as it comes (without it,
  // libpcap hands over whole ring blocks, and a cell shorter than the
  // block timeout ended with "0 packets captured"); -U: each is written
  // as it is captured; -B 16384: a 16 MiB kernel buffer (in the knfsd
  // guest, whose one CPU runs knfsd, the client and both tcpdumps, the
  // default 2 MiB dropped 21 and 24 of 380 packets of a 100-MKDIR trial,
  // 2026-12-06); -Z root: tcpdump
  // keeps root's rights, so it can write where the cell's root-owned
  // folder is.
  tcpdump_ = std::make_unique<process::ChildProcess>(
      std::vector<std::string>{kTcpdump, "-i", end.ifname, "-n", "-s", "0", "-B", "16384", "--immediate-mode", "-U", "-Z", "root", "-w", path}, spawn,
      log);
  auto deadline = std::chrono::steady_clock::now() + ready_within;
  while (stderr_text().find("listening on") == std::string::npos) {
    if (!tcpdump_->running()) throw std::runtime_error("--pcap: tcpdump ended before it listened: " + stderr_text());
    if (std::chrono::steady_clock::now() > deadline) {
      tcpdump_->stop(std::chrono::seconds(1));
      throw std::runtime_error("--pcap: tcpdump did not listen within " + std::to_string(ready_within.count()) +
                               " ms: " + stderr_text());
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

EndPcap::~EndPcap() {
  if (tcpdump_) stop();
}

std::string EndPcap::stderr_text() const {
  std::ifstream in(stderr_path_);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string EndPcap::stop() {
  if (!tcpdump_) return summary_;
  tcpdump_->signal(SIGINT);
  auto status = tcpdump_->wait_for(std::chrono::seconds(5));
  if (!status) {
    tcpdump_->stop(std::chrono::seconds(1));
    summary_ = "tcpdump did not end within 5 s of SIGINT (killed; the file may lack its last packets)";
  } else {
    std::string text = stderr_text();
    size_t at = text.find("packets captured");
    size_t line = at == std::string::npos ? std::string::npos : text.rfind('\n', at);
    summary_ = at == std::string::npos ? "tcpdump: " + process::describe_wait_status(*status) + ": " + text
                                       : text.substr(line == std::string::npos ? 0 : line + 1);
    while (!summary_.empty() && summary_.back() == '\n') summary_.pop_back();
    for (char& c : summary_)
      if (c == '\n') c = ';';
  }
  tcpdump_.reset();
  return summary_;
}

}  // namespace rpclab::harness::nfs
