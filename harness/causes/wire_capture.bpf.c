// The wire capture's kernel half (wire_bpf.h loads it): one 16-byte event
// per UDP datagram of the client's RPC socket, into a ring buffer the
// harness reads. It replaces nflog where the kernel allows, because nflog
// costs about a microsecond a packet (a netlink record built per packet,
// batches copied to a socket) and a storm cell logs 300,000 packets a
// second on 2 CPUs; this costs a ring buffer reservation.
//
//   `sent`    tcx egress of the client's device: runs after the netdev
//             egress hook, where the fault rules only add copies (`dup`,
//             which marks them); nothing there drops a request. The copy
//             passes here before its original does.
//   `arrived` netfilter IPv4 pre-routing of the client's namespace: after
//             the device's ingress hook and tc ingress, where replies are
//             dropped, so it sees the replies that reached the client.
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>

#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "harness/causes/wire_event.h"

struct {
  __uint(type, BPF_MAP_TYPE_RINGBUF);
  __uint(max_entries, 1 << 24);  // 16 MiB: ~2 s of a storm cell if the reader stalls
} events SEC(".maps");

// Events the ring had no room for: the capture's drops.
struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, __u64);
} lost SEC(".maps");

// Set by the loader before the program is loaded.
const volatile __u16 server_port = 0;
const volatile __u16 fence_port = 0;
const volatile __u32 dup_mark = 0;

// Only the fields read, relocated against the running kernel's BTF.
struct sk_buff {
  unsigned char *head;
  __u16 network_header;
} __attribute__((preserve_access_index));

// A netfilter program's context (include/net/netfilter/nf_bpf_link.h).
struct bpf_nf_ctx {
  const void *state;
  struct sk_buff *skb;
};

struct udp_start {
  __u16 source, dest, len, check;
  __u32 xid;  // the first 4 bytes of the payload
};

static __always_inline void emit(__u8 kind, __u16 client_port, __u32 xid) {
  // TAI, not the monotonic clock: it differs from CLOCK_REALTIME by whole
  // seconds, so the server's receive stamps compare with it exactly.
  struct rpclab_wire_event e = {bpf_ktime_get_tai_ns(), xid, client_port, kind, 0};
  // Waking the reader per packet would cost what nflog did; it polls. The
  // fence wakes it, so stop() does not wait for a poll.
  __u64 flags = kind == RPCLAB_WIRE_FENCE ? 0 : BPF_RB_NO_WAKEUP;
  if (bpf_ringbuf_output(&events, &e, sizeof e, flags) != 0) {
    __u32 zero = 0;
    __u64 *n = bpf_map_lookup_elem(&lost, &zero);
    if (n) *n += 1;
  }
}

// Anything but the first fragment's header of an IPv4 UDP datagram.
static __always_inline int not_udp(const struct iphdr *ip) {
  return ip->version != 4 || ip->protocol != IPPROTO_UDP || (ip->frag_off & bpf_htons(0x1fff));
}

SEC("tc")
int sent(struct __sk_buff *skb) {
  const int next = -1;  // TC_ACT_UNSPEC: leave the packet to what follows
  struct iphdr ip;
  struct udp_start u;
  if (skb->protocol != bpf_htons(ETH_P_IP)) return next;
  if (bpf_skb_load_bytes(skb, ETH_HLEN, &ip, sizeof ip) || not_udp(&ip)) return next;
  if (bpf_skb_load_bytes(skb, ETH_HLEN + ip.ihl * 4, &u, sizeof u)) return next;
  __u16 dport = bpf_ntohs(u.dest);
  if (dport == fence_port)
    emit(RPCLAB_WIRE_FENCE, bpf_ntohs(u.source), 0);
  else if (dport == server_port)
    emit(skb->mark == dup_mark ? RPCLAB_WIRE_COPY : RPCLAB_WIRE_SENT, bpf_ntohs(u.source), bpf_ntohl(u.xid));
  return next;
}

SEC("netfilter")
int arrived(struct bpf_nf_ctx *ctx) {
  const int accept = 1;  // NF_ACCEPT
  struct sk_buff *skb = ctx->skb;
  unsigned char *l3 = skb->head + skb->network_header;
  struct iphdr ip;
  struct udp_start u;
  if (bpf_probe_read_kernel(&ip, sizeof ip, l3) || not_udp(&ip)) return accept;
  if (bpf_probe_read_kernel(&u, sizeof u, l3 + ip.ihl * 4)) return accept;
  if (bpf_ntohs(u.source) == server_port) emit(RPCLAB_WIRE_REPLY, bpf_ntohs(u.dest), bpf_ntohl(u.xid));
  return accept;
}

char LICENSE[] SEC("license") = "GPL";
