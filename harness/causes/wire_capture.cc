#include "harness/causes/wire_capture.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_log.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <pcap/pcap.h>
#include <poll.h>
#include <sched.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fmt/format.h>

#include <chrono>
#include <cstring>
#include <optional>
#include <future>

#include "harness/causes/wire_bpf.h"
#include "harness/causes/wire_record.h"
#include "process/command_runner.h"

namespace rpclab::harness {
namespace {

// The nflog backend's table. Requests are logged before the fault chains
// (priority 0), and so are the copies `dup` makes (they pass the egress
// hook again, carrying the dup mark, which the log record holds); replies
// after the fault chains and the timed events' chains (priority 10), so a
// dropped reply is not logged.
// nfnetlink_log batches the packets (kBatchPackets, or a second); the fence
// datagram that stop() sends is logged by a rule with queue-threshold 1,
// which sends the batch before it at once, so the capture knows it has
// everything. A record needs the packet up to the XID: 14 bytes of
// Ethernet header (egress), 20 of IPv4, 8 of UDP, 4 of XID.
std::vector<std::string> table_commands(const std::string& ifname, uint16_t port) {
  return {"nft", fmt::format("add table netdev {0} ; "
                             "add chain netdev {0} egress {{ type filter hook egress device \"{1}\" priority -10 ; }} ; "
                             "add rule netdev {0} egress meta protocol ip udp dport {4} log group {3} queue-threshold 1 ; "
                             "add rule netdev {0} egress meta protocol ip udp dport {2} log group {3} snaplen 48 ; "
                             "add chain netdev {0} ingress {{ type filter hook ingress device \"{1}\" priority 20 ; }} ; "
                             "add rule netdev {0} ingress meta protocol ip udp sport {2} log group {3} snaplen 48",
                             WireCapture::kTable, ifname, port, WireCapture::kGroup, WireCapture::kFencePort)};
}

// Fewer, larger batches: nfnetlink_log sends one netlink message per
// kBatchBytes or kBatchPackets, where its defaults (a page, 100) wake the
// reader every ~25 packets, each wake-up taking a CPU from the server or
// the clients (make run-dependability's storm cells log ~300,000 packets
// a second). The instance belongs to libpcap's socket, so the config goes
// on it. Best effort: the defaults lose nothing, they cost more. The
// kernel rounds the batch's buffer up (to 32 KiB here), and libpcap reads
// into one of snaplen + 128 bytes and would cut a longer batch short
// without a word: 64 KiB batches lost packets that way, so keep the two
// far apart.
constexpr uint32_t kBatchBytes = 16 << 10, kBatchPackets = 1000;
constexpr int kReadBufferBytes = 65535;  // pcap_set_snaplen: the netlink message, not the packet
static_assert(4 * kBatchBytes <= kReadBufferBytes + 1, "a rounded-up batch must fit libpcap's read buffer");

void enlarge_batches(int fd) {
  struct {
    nlmsghdr nh;
    nfgenmsg g;
    nlattr bufsiz_attr;
    uint32_t bufsiz;
    nlattr qthresh_attr;
    uint32_t qthresh;
  } m{};
  m.nh.nlmsg_len = sizeof m;
  m.nh.nlmsg_type = (NFNL_SUBSYS_ULOG << 8) | NFULNL_MSG_CONFIG;
  m.nh.nlmsg_flags = NLM_F_REQUEST;
  m.g.nfgen_family = AF_UNSPEC;
  m.g.version = NFNETLINK_V0;
  m.g.res_id = htons(WireCapture::kGroup);
  m.bufsiz_attr = {sizeof(nlattr) + sizeof(uint32_t), NFULA_CFG_NLBUFSIZ};
  m.bufsiz = htonl(kBatchBytes);
  m.qthresh_attr = {sizeof(nlattr) + sizeof(uint32_t), NFULA_CFG_QTHRESH};
  m.qthresh = htonl(kBatchPackets);
  sockaddr_nl kernel{};
  kernel.nl_family = AF_NETLINK;
  sendto(fd, &m, sizeof m, 0, reinterpret_cast<sockaddr*>(&kernel), sizeof kernel);
}

// One datagram to the server's discard port, from the calling thread's
// namespace: the fence. False when it could not be sent.
bool send_fence(const std::string& server_address) {
  int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(WireCapture::kFencePort);
  bool ok = inet_pton(AF_INET, server_address.c_str(), &to.sin_addr) == 1 &&
            sendto(fd, "fence", 5, 0, reinterpret_cast<sockaddr*>(&to), sizeof to) == 5;
  close(fd);
  return ok;
}

constexpr int kPollMs = 50;
constexpr auto kFenceWait = std::chrono::seconds(3);  // past nfnetlink_log's 1 s flush timer

struct PcapCloser {
  void operator()(pcap_t* p) const { pcap_close(p); }
};
using Pcap = std::unique_ptr<pcap_t, PcapCloser>;

// The NFLOG group opened in the calling thread's network namespace.
Pcap open_group(std::string& error) {
  char err[PCAP_ERRBUF_SIZE] = "";
  Pcap p(pcap_create(fmt::format("nflog:{}", WireCapture::kGroup).c_str(), err));
  if (!p) {
    error = err;
    return nullptr;
  }
  pcap_set_snaplen(p.get(), kReadBufferBytes);
  pcap_set_buffer_size(p.get(), 16 << 20);
  if (pcap_activate(p.get()) < 0 || pcap_setnonblock(p.get(), 1, err) < 0) {
    error = pcap_geterr(p.get());
    return nullptr;
  }
  enlarge_batches(pcap_get_selectable_fd(p.get()));
  return p;
}

}  // namespace

WireCapture::WireCapture(const netem::Host& client, const std::string& server_address, uint16_t server_port,
                         const std::string& choice, process::CommandLog& log)
    : client_(client), server_address_(server_address), server_port_(server_port), log_(log) {
  if (client.netns.empty() || client.ifname.empty()) {
    missing_ = "no link to capture on (the host's own lo)";
    return;
  }
  std::string bpf_refused;
  if (choice != "nflog") {
    bpf_refused = start_bpf();
    if (bpf_refused.empty()) {
      backend_ = "bpf";
      return;
    }
    if (choice == "bpf") {
      missing_ = "eBPF: " + bpf_refused;
      return;
    }
    log_.comment(fmt::format("wire capture: no eBPF ({}); nflog instead", bpf_refused));
  }
  backend_ = bpf_refused.empty() ? "nflog" : fmt::format("nflog (no eBPF: {})", bpf_refused);
  missing_ = start_nflog();
  if (!missing_.empty()) {
    if (!bpf_refused.empty()) missing_ += fmt::format("; and no eBPF: {}", bpf_refused);
    stop();
  }
}

WireCapture::~WireCapture() {
  try {
    stop();
  } catch (...) {
  }
}

std::string WireCapture::in_client_namespace(std::function<std::string()> start, std::function<void()> read) {
  int fd = open(("/run/netns/" + client_.netns).c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return fmt::format("cannot open the client's namespace {}: {}", client_.netns, strerror(errno));
  std::promise<std::string> started;
  std::future<std::string> result = started.get_future();
  thread_ = std::thread([fd, &started, start = std::move(start), read = std::move(read)] {
    std::string error;
    if (setns(fd, CLONE_NEWNET) != 0) error = fmt::format("setns into the client's namespace: {}", strerror(errno));
    close(fd);
    if (error.empty()) error = start();
    started.set_value(error);
    if (error.empty()) read();
  });
  std::string error = result.get();
  if (!error.empty()) thread_.join();
  return error;
}

std::string WireCapture::start_bpf() {
  return in_client_namespace(
      [this] {
        try {
          bpf_ = std::make_unique<BpfWire>(client_.ifname, server_port_, kFencePort);
        } catch (const BpfWireError& e) {
          return std::string(e.what());
        }
        log_.comment(fmt::format("wire capture: eBPF on {} in {}: {} (bpftool link show)", client_.ifname,
                                 client_.netns, BpfWire::kAttached));
        return std::string();
      },
      [this] {
        read_until_fence([this](int timeout_ms) { fence_seen_ = bpf_->read(timeout_ms, wire_) || fence_seen_; });
        wire_.drops += bpf_->lost();
        bpf_.reset();  // detaches the programs
      });
}

std::string WireCapture::start_nflog() {
  try {
    process::run_checked(table_commands(client_.ifname, server_port_), log_, client_.netns);
    table_ = true;
  } catch (const std::exception& e) {
    return fmt::format("the capture's nftables log rules failed: {}", e.what());
  }
  auto pcap = std::make_shared<Pcap>();
  return in_client_namespace(
      [pcap] {
        std::string error;
        *pcap = open_group(error);
        return error.empty() ? "" : fmt::format("libpcap nflog:{}: {}", kGroup, error);
      },
      [this, pcap] {
        read_nflog(pcap->get());
        pcap->reset();
      });
}

void WireCapture::read_until_fence(const std::function<void(int timeout_ms)>& read_some) {
  std::optional<std::chrono::steady_clock::time_point> fence_deadline;
  while (!fence_seen_) {
    if (stop_ && !fence_deadline) {
      fence_deadline = std::chrono::steady_clock::now() + kFenceWait;
      if (!send_fence(server_address_)) break;
    }
    if (fence_deadline && std::chrono::steady_clock::now() > *fence_deadline) break;
    read_some(kPollMs);
  }
  if (!fence_seen_) ++wire_.drops;  // the end of the capture is not known to be in it
}

void WireCapture::read_nflog(pcap_t* p) {
  auto on_packet = [](u_char* user, const pcap_pkthdr* h, const u_char* bytes) {
    auto* self = reinterpret_cast<WireCapture*>(user);
    int64_t ns = int64_t{h->ts.tv_sec} * 1'000'000'000 + int64_t{h->ts.tv_usec} * 1000;
    if (wire_packet_from_nflog(bytes, h->caplen, kFencePort, ns))
      self->fence_seen_ = true;
    else if (auto packet = wire_packet_from_nflog(bytes, h->caplen, self->server_port_, ns))
      self->wire_.packets.push_back(*packet);
  };
  pollfd pfd{pcap_get_selectable_fd(p), POLLIN, 0};
  uint64_t errors = 0;
  // A read error (a full netlink buffer: ENOBUFS) loses packets: count it
  // as a drop so the attribution does not guess.
  read_until_fence([&](int timeout_ms) {
    if (poll(&pfd, 1, timeout_ms) > 0 && pcap_dispatch(p, -1, on_packet, reinterpret_cast<u_char*>(this)) < 0)
      ++errors;
  });
  pcap_stat st{};
  if (pcap_stats(p, &st) == 0) wire_.drops += st.ps_drop;
  wire_.drops += errors;
}

void WireCapture::stop() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
  remove_table();
}

void WireCapture::remove_table() {
  if (!table_) return;
  table_ = false;
  process::run({"nft", "delete", "table", "netdev", kTable}, log_, client_.netns);
}

}  // namespace rpclab::harness
