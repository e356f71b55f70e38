/* One datagram as the eBPF capture reports it (wire_capture.bpf.c to
 * wire_bpf.cc). C, for both compilers; the kinds match WireKind, plus the
 * fence. */
#ifndef RPCLAB_HARNESS_WIRE_EVENT_H
#define RPCLAB_HARNESS_WIRE_EVENT_H

#include <linux/types.h>

enum { RPCLAB_WIRE_SENT = 1, RPCLAB_WIRE_REPLY = 2, RPCLAB_WIRE_COPY = 3, RPCLAB_WIRE_FENCE = 4 };

struct rpclab_wire_event {
  __u64 tai_ns;       /* bpf_ktime_get_tai_ns() when the hook saw it */
  __u32 xid;          /* host order */
  __u16 client_port;  /* the client socket's port */
  __u8 kind;
  __u8 pad;
};

#endif
