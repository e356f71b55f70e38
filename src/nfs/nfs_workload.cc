#include "nfs/nfs_workload.h"

#include <stdexcept>

namespace rpclab::nfs {

namespace {
struct OpRow {
  NfsOp op;
  const char* name;
  bool creates;
  const char* replay_status;  // nullptr: idempotent
};
constexpr OpRow kOps[] = {
    {NfsOp::kMkdir, "mkdir", true, "NFS3ERR_EXIST"},
    {NfsOp::kRmdir, "rmdir", false, "NFS3ERR_NOENT"},
    {NfsOp::kCreateGuarded, "create-guarded", true, "NFS3ERR_EXIST"},
    {NfsOp::kRemove, "remove", false, "NFS3ERR_NOENT"},
    {NfsOp::kGetattr, "getattr", false, nullptr},
};
const OpRow& row(NfsOp op) {
  for (const OpRow& r : kOps)
    if (r.op == op) return r;
  throw std::logic_error("NfsOp without a row");
}
}  // namespace

std::string op_name(NfsOp op) { return row(op).name; }

std::optional<NfsOp> parse_op(const std::string& name) {
  for (const OpRow& r : kOps)
    if (name == r.name) return r.op;
  return std::nullopt;
}

std::vector<NfsOp> parse_ops(const std::string& list) {
  std::vector<NfsOp> ops;
  size_t start = 0;
  while (start <= list.size()) {
    size_t comma = list.find(',', start);
    std::string name = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    auto op = parse_op(name);
    if (!op) {
      std::string known;
      for (const OpRow& r : kOps) known += (known.empty() ? "" : ", ") + std::string(r.name);
      throw std::invalid_argument("unknown NFS operation '" + name + "' (" + known + ")");
    }
    ops.push_back(*op);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return ops;
}

std::string ops_text(const std::vector<NfsOp>& ops) {
  std::string out;
  for (NfsOp op : ops) out += (out.empty() ? "" : ",") + op_name(op);
  return out;
}

bool creates(NfsOp op) { return row(op).creates; }

bool idempotent(NfsOp op) { return row(op).replay_status == nullptr; }

std::optional<std::string> replay_status(NfsOp op) {
  const char* status = row(op).replay_status;
  return status ? std::optional<std::string>(status) : std::nullopt;
}

std::string step_name(uint32_t client, uint32_t seq) {
  return "c" + std::to_string(client) + "-s" + std::to_string(seq);
}

}  // namespace rpclab::nfs
