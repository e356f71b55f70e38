// The NFS workload's record of every call: what the client was told.
// JSON lines: line 1 the header (the client's settings), then one object
// per call:
//   {"seq":3,"op":"mkdir","name":"c1-s3","rpc":"ok","nfs":"NFS3ERR_EXIST",
//    "latency_ns":812345,"start_ns":40211871}
// `rpc` is what the RPC library said ("ok", "timeout", or "error" with
// `detail`, libtirpc's text); `nfs` is the NFSv3 status when a reply came,
// null when none did. Over guarded UDP (nfs3_client.h), when not 0:
// `stale_replies`, replies of earlier calls dropped before or during the
// call, and `early_timeouts`, clnt_dg timeouts before the call's deadline
// that the client retried with the same XID. rpclab-nfs-client adds `xid`,
// the XID every transmission of the call carried (the kernel client and
// libnfs keep theirs out of the program's sight).
#pragma once

#include <chrono>
#include <functional>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "nfs/nfs_workload.h"

namespace rpclab::nfs {

struct NfsCall {
  uint32_t seq = 0;
  NfsOp op = NfsOp::kMkdir;
  std::string name;
  std::string rpc = "ok";           // "ok" | "timeout" | "error"
  std::string detail;               // libtirpc's text when rpc is not "ok"
  std::optional<std::string> nfs;   // "NFS3_OK", "NFS3ERR_EXIST", ...; none without a reply
  int64_t latency_ns = 0;
  int64_t start_ns = 0;             // from the record's start (monotonic clock)
  uint32_t stale_replies = 0;
  uint32_t early_timeouts = 0;
  std::optional<uint32_t> xid;      // rpclab-nfs-client: the call's XID, to find it on the wire
};

struct NfsCallRecord {
  static constexpr int kVersion = 1;
  nlohmann::json header = nlohmann::json::object();
  std::vector<NfsCall> calls;

  std::string format() const;
  static NfsCallRecord parse(std::string_view text);  // throws std::runtime_error naming the line
  void write_file(const std::string& path) const;
  static NfsCallRecord read_file(const std::string& path);
};

// Nanoseconds from `t0` to now (the record's start_ns and latency_ns).
inline int64_t ns_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count();
}

// The workload: for seq = first_seq..first_seq + count - 1, each of `ops`
// in order on step_name(client_id, seq), each call's answer (anything with
// `rpc`, `detail` and `nfs`: Nfs3Reply, FsAnswer) appended to `record`.
// `call(op, name, c)` may fill more of the call `c` it is making (the UDP
// guard's counts); `before_step(seq)`, when given, runs before a step's
// first call (the harness's step gate, nfs/step_gate.h).
template <typename Call>
void record_steps(NfsCallRecord& record, uint32_t client_id, uint32_t count, const std::vector<NfsOp>& ops,
                  std::chrono::steady_clock::time_point t0, Call&& call,
                  const std::function<void(uint32_t seq)>& before_step = nullptr, uint32_t first_seq = 1) {
  for (uint32_t seq = first_seq; seq < first_seq + count; ++seq) {
    std::string name = step_name(client_id, seq);
    if (before_step) before_step(seq);
    for (NfsOp op : ops) {
      NfsCall c;
      c.seq = seq;
      c.op = op;
      c.name = name;
      c.start_ns = ns_since(t0);
      auto r = call(op, name, c);
      c.latency_ns = ns_since(t0) - c.start_ns;
      c.rpc = r.rpc;
      c.detail = r.detail;
      c.nfs = r.nfs;
      record.calls.push_back(std::move(c));
    }
  }
}

// The workload after `warmup` steps (seq 1..warmup) that are made but not
// recorded, so the first recorded call (seq warmup + 1, a name of its own)
// finds the connection, the server and the caches warm: the speed view's
// timed loop (harness/nfs/nfs_speed.h).
template <typename Call>
void record_steps_after_warmup(NfsCallRecord& record, uint32_t client_id, uint32_t warmup, uint32_t count,
                               const std::vector<NfsOp>& ops, std::chrono::steady_clock::time_point t0, Call&& call,
                               const std::function<void(uint32_t seq)>& before_step = nullptr) {
  NfsCallRecord unrecorded;
  record_steps(unrecorded, client_id, warmup, ops, t0, call);
  record_steps(record, client_id, count, ops, t0, call, before_step, warmup + 1);
}

}  // namespace rpclab::nfs
