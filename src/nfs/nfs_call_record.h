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
// that the client retried with the same XID.
#pragma once

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

}  // namespace rpclab::nfs
