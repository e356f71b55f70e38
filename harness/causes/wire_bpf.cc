#include "harness/causes/wire_bpf.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>
#include <net/if.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <cstdarg>
#include <cstring>
#include <string>
#include <vector>

#include "harness/causes/wire_capture.skel.h"
#include "harness/causes/wire_event.h"
#include "harness/causes/wire_record.h"
#include "netem/faults/nft_rules.h"

namespace rpclab::harness {
namespace {

// Linux 6.4 and 6.6 constants that Debian 12's headers (6.1) lack; uapi
// values never change.
constexpr int kProgTypeNetfilter = 32;   // BPF_PROG_TYPE_NETFILTER
constexpr int kAttachNetfilter = 45;     // BPF_NETFILTER
constexpr int kAttachTcxEgress = 47;     // BPF_TCX_EGRESS
constexpr uint32_t kIpv4 = 2;            // NFPROTO_IPV4
constexpr uint32_t kPreRouting = 0;      // NF_INET_PRE_ROUTING

// libbpf's last warning on this thread: the reason a load failed.
thread_local std::string last_libbpf_warning;

int keep_warning(enum libbpf_print_level level, const char* format, va_list args) {
  if (level == LIBBPF_DEBUG) return 0;
  char line[512];
  int n = vsnprintf(line, sizeof line, format, args);
  if (n > 0) last_libbpf_warning.assign(line, strnlen(line, sizeof line));
  while (!last_libbpf_warning.empty() && last_libbpf_warning.back() == '\n') last_libbpf_warning.pop_back();
  return 0;
}

std::string refused(const std::string& what, int err) {
  std::string why = fmt::format("{}: {}", what, strerror(err < 0 ? -err : err));
  if (!last_libbpf_warning.empty()) why += " (libbpf: " + last_libbpf_warning + ")";
  return why;
}

// bpf(BPF_LINK_CREATE) for a netfilter hook, which libbpf 1.1 cannot make:
// the link_create fields the kernel reads for it, at their uapi offsets.
int netfilter_link(int prog_fd) {
  struct Netfilter {
    uint32_t prog_fd, target_fd, attach_type, flags;
    uint32_t pf, hooknum;
    int32_t priority;
    uint32_t nf_flags;
  } nf{static_cast<uint32_t>(prog_fd), 0, kAttachNetfilter, 0, kIpv4, kPreRouting, 0, 0};
  union bpf_attr attr;
  static_assert(sizeof nf <= sizeof attr, "bpf_attr holds link_create");
  memset(&attr, 0, sizeof attr);
  memcpy(&attr, &nf, sizeof nf);
  return static_cast<int>(syscall(__NR_bpf, BPF_LINK_CREATE, &attr, sizeof attr));
}

// CLOCK_TAI minus CLOCK_REALTIME: the kernel's TAI offset, whole seconds.
int64_t tai_offset_ns() {
  timespec tai{}, real{};
  clock_gettime(CLOCK_TAI, &tai);
  clock_gettime(CLOCK_REALTIME, &real);
  double s = static_cast<double>(tai.tv_sec - real.tv_sec) + (tai.tv_nsec - real.tv_nsec) / 1e9;
  return std::llround(s) * 1'000'000'000;
}

}  // namespace

// The event's kinds are WireKind's (wire_event.h is C, for the program).
static_assert(RPCLAB_WIRE_SENT == static_cast<int>(WireKind::kSent) &&
                  RPCLAB_WIRE_REPLY == static_cast<int>(WireKind::kReply) &&
                  RPCLAB_WIRE_COPY == static_cast<int>(WireKind::kCopy),
              "wire_event.h's kinds must be WireKind's");

struct BpfWire::State {
  wire_capture* skel = nullptr;
  int egress = -1, arrival = -1;  // link fds
  ring_buffer* ring = nullptr;
  int64_t tai_offset = tai_offset_ns();
  Wire* into = nullptr;  // the Wire read() fills, while it runs
  CopiesAfterOriginals order;
  bool fence = false;

  ~State() {
    if (ring) ring_buffer__free(ring);
    if (arrival >= 0) close(arrival);
    if (egress >= 0) close(egress);
    if (skel) wire_capture__destroy(skel);
  }

  void add(const rpclab_wire_event& e) {
    WirePacket p;
    p.kind = static_cast<WireKind>(e.kind);
    p.client_port = e.client_port;
    p.xid = e.xid;
    p.realtime_ns = static_cast<int64_t>(e.tai_ns) - tai_offset;
    order.add(p, into->packets);
  }

  static int on_event(void* ctx, void* data, size_t size) {
    auto* self = static_cast<State*>(ctx);
    if (size < sizeof(rpclab_wire_event)) return 0;
    rpclab_wire_event e;
    memcpy(&e, data, sizeof e);
    if (e.kind == RPCLAB_WIRE_FENCE)
      self->fence = true;
    else if (e.kind >= RPCLAB_WIRE_SENT && e.kind <= RPCLAB_WIRE_COPY)
      self->add(e);
    return 0;
  }
};

BpfWire::BpfWire(const std::string& ifname, uint16_t server_port, uint16_t fence_port) : s_(new State) {
  libbpf_set_print(keep_warning);
  last_libbpf_warning.clear();
  unsigned ifindex = if_nametoindex(ifname.c_str());
  if (ifindex == 0) throw BpfWireError(fmt::format("no device {} in the client's namespace", ifname));
  s_->skel = wire_capture__open();
  if (!s_->skel) throw BpfWireError(refused("libbpf cannot open the program", errno));
  s_->skel->rodata->server_port = server_port;
  s_->skel->rodata->fence_port = fence_port;
  s_->skel->rodata->dup_mark = netem::kNftDupMark;
  // libbpf 1.1 does not know SEC("netfilter"): say what it is.
  bpf_program__set_type(s_->skel->progs.arrived, static_cast<bpf_prog_type>(kProgTypeNetfilter));
  bpf_program__set_expected_attach_type(s_->skel->progs.arrived, static_cast<bpf_attach_type>(kAttachNetfilter));
  if (int err = wire_capture__load(s_->skel))
    throw BpfWireError(refused("the kernel refused the capture's eBPF programs", err));
  s_->egress = bpf_link_create(bpf_program__fd(s_->skel->progs.sent), static_cast<int>(ifindex),
                               static_cast<bpf_attach_type>(kAttachTcxEgress), nullptr);
  if (s_->egress < 0) throw BpfWireError(refused(fmt::format("tcx egress of {} (Linux 6.6+)", ifname), errno));
  s_->arrival = netfilter_link(bpf_program__fd(s_->skel->progs.arrived));
  if (s_->arrival < 0) throw BpfWireError(refused("a netfilter eBPF link (Linux 6.4+)", errno));
  s_->ring = ring_buffer__new(bpf_map__fd(s_->skel->maps.events), State::on_event, s_.get(), nullptr);
  if (!s_->ring) throw BpfWireError(refused("libbpf cannot read the ring buffer", errno));
}

BpfWire::~BpfWire() = default;

bool BpfWire::read(int timeout_ms, Wire& wire) {
  s_->into = &wire;
  // The poll returns early only for the fence (the rest do not wake it),
  // and reads nothing when it times out: consume reads what is there. A
  // call that fails (EINTR) reads again next time; nothing is lost.
  ring_buffer__poll(s_->ring, timeout_ms);
  ring_buffer__consume(s_->ring);
  if (s_->fence) s_->order.flush(wire.packets);
  s_->into = nullptr;
  return s_->fence;
}

uint64_t BpfWire::lost() const {
  int cpus = libbpf_num_possible_cpus();
  if (cpus <= 0) return 1;
  std::vector<uint64_t> per_cpu(static_cast<size_t>(cpus));
  uint32_t zero = 0;
  // Unreadable: the capture cannot say it is whole, which one drop says.
  if (bpf_map_lookup_elem(bpf_map__fd(s_->skel->maps.lost), &zero, per_cpu.data()) != 0) return 1;
  uint64_t sum = 0;
  for (uint64_t n : per_cpu) sum += n;
  return sum;
}

}  // namespace rpclab::harness
