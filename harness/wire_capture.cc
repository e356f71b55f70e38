#include "harness/wire_capture.h"

#include <fcntl.h>
#include <pcap/pcap.h>
#include <poll.h>
#include <sched.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cstring>
#include <future>

#include "harness/wire_record.h"
#include "netem/command_runner.h"

namespace rpclab::harness {
namespace {

// Requests are logged before the fault chains (priority 0), and so are
// the copies `dup` makes (they pass the egress hook again, carrying the dup
// mark, which the log record holds); replies after the fault chains and the
// timed events' chains (priority 10), so a dropped reply is not logged.
// queue-threshold 1: nfnetlink_log sends each packet at once instead of
// batching 100 and flushing the rest a second later, so the last calls'
// packets are there when the clients are done.
std::vector<std::string> table_commands(const std::string& ifname, uint16_t port) {
  return {"nft", fmt::format("add table netdev {0} ; "
                             "add chain netdev {0} egress {{ type filter hook egress device \"{1}\" priority -10 ; }} ; "
                             "add rule netdev {0} egress meta protocol ip udp dport {2} "
                             "log group {3} snaplen 96 queue-threshold 1 ; "
                             "add chain netdev {0} ingress {{ type filter hook ingress device \"{1}\" priority 20 ; }} ; "
                             "add rule netdev {0} ingress meta protocol ip udp sport {2} log group {3} snaplen 96 queue-threshold 1",
                             WireCapture::kTable, ifname, port, WireCapture::kGroup)};
}

constexpr int kIdleMs = 50;  // after stop: a queue quiet this long is drained

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
  pcap_set_snaplen(p.get(), 65535);  // the netlink message, not the packet: it must fit whole
  pcap_set_buffer_size(p.get(), 16 << 20);
  if (pcap_activate(p.get()) < 0 || pcap_setnonblock(p.get(), 1, err) < 0) {
    error = pcap_geterr(p.get());
    return nullptr;
  }
  return p;
}

}  // namespace

WireCapture::WireCapture(const netem::Host& client, uint16_t server_port, netem::CommandLog& log)
    : client_(client), server_port_(server_port), log_(log) {
  if (client.netns.empty() || client.ifname.empty()) {
    missing_ = "no link to capture on (loopback)";
    return;
  }
  int fd = open(("/run/netns/" + client.netns).c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    missing_ = fmt::format("cannot open the client's namespace {}: {}", client.netns, strerror(errno));
    return;
  }
  try {
    netem::run_checked(table_commands(client.ifname, server_port), log_, client.netns);
    table_ = true;
  } catch (const std::exception& e) {
    close(fd);
    missing_ = fmt::format("the capture's nftables log rules failed: {}", e.what());
    return;
  }
  std::promise<std::string> started;
  std::future<std::string> result = started.get_future();
  thread_ = std::thread([this, fd, &started] {
    std::string error;
    Pcap p;
    if (setns(fd, CLONE_NEWNET) != 0) error = fmt::format("setns into the client's namespace: {}", strerror(errno));
    close(fd);
    if (error.empty()) p = open_group(error);
    started.set_value(error.empty() ? "" : "libpcap nflog:" + std::to_string(kGroup) + ": " + error);
    if (p) read_loop(p.get());
  });
  missing_ = result.get();
  if (!missing_.empty()) stop();
}

WireCapture::~WireCapture() {
  try {
    stop();
  } catch (...) {
  }
}

void WireCapture::read_loop(pcap_t* p) {
  auto on_packet = [](u_char* user, const pcap_pkthdr* h, const u_char* bytes) {
    auto* self = reinterpret_cast<WireCapture*>(user);
    int64_t ns = int64_t{h->ts.tv_sec} * 1'000'000'000 + int64_t{h->ts.tv_usec} * 1000;
    if (auto packet = wire_packet_from_nflog(bytes, h->caplen, self->server_port_, ns))
      self->wire_.packets.push_back(*packet);
  };
  pollfd pfd{pcap_get_selectable_fd(p), POLLIN, 0};
  uint64_t errors = 0;
  for (;;) {
    bool stopping = stop_.load();
    int ready = poll(&pfd, 1, kIdleMs);
    if (ready == 0 && stopping) break;  // asked to stop, and nothing more came
    if (ready <= 0) continue;
    // A read error (a full netlink buffer: ENOBUFS) loses packets: count it
    // as a drop so the attribution does not guess.
    if (pcap_dispatch(p, -1, on_packet, reinterpret_cast<u_char*>(this)) < 0) ++errors;
  }
  pcap_stat st{};
  if (pcap_stats(p, &st) == 0) wire_.drops = st.ps_drop;
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
  netem::run({"nft", "delete", "table", "netdev", kTable}, log_, client_.netns);
}

}  // namespace rpclab::harness
