#include "nfs/nfs_workload.h"

#include <stdexcept>

namespace rpclab::nfs {

namespace {

// An effect of a row: the step's name, or the step's name with `suffix`.
struct EffectRow {
  const char* suffix;  // nullptr: no effect in this slot
  Presence presence;
};

struct OpRow {
  NfsOp op;
  const char* name;
  const char* procedure;   // RFC 1813's name, knfsd's proc3 column
  const char* second;      // the suffix of its second name, "" when it has none
  EffectRow effects[2];
  bool needs_step_name;
  const char* replay;      // what a second execution is told; nullptr: idempotent
  const char* wire;        // rpclab-nfs-client
  const char* syscall;     // rpclab-nfs-fsops; "" when no system call sends it
  const char* libnfs;      // rpclab-nfs-libnfs: its libnfs call and what that sends; "" when libnfs cannot
  const char* no_libnfs;   // ... and then why not; "" when it can
};

constexpr EffectRow kNone = {nullptr, Presence::kThere};

// The operation table. Append rows; a row's traits are read only through
// the functions of nfs_workload.h.
constexpr OpRow kOps[] = {
    {NfsOp::kMkdir, "mkdir", "MKDIR", "", {{"", Presence::kThere}, kNone}, false, "NFS3ERR_EXIST", "MKDIR",
     "mkdir(2): MKDIR",
     "nfs_mkdir2(mode 0755): MKDIR", ""},
    {NfsOp::kRmdir, "rmdir", "RMDIR", "", {{"", Presence::kGone}, kNone}, true, "NFS3ERR_NOENT", "RMDIR",
     "rmdir(2): RMDIR",
     "nfs_rmdir: RMDIR", ""},
    {NfsOp::kCreateGuarded, "create-guarded", "CREATE", "", {{"", Presence::kThere}, kNone}, false, "NFS3ERR_EXIST",
     "CREATE GUARDED", "",
     "nfs_create(O_CREAT|O_EXCL), nfs_close: CREATE GUARDED (libnfs sends O_EXCL as GUARDED)", ""},
    {NfsOp::kRemove, "remove", "REMOVE", "", {{"", Presence::kGone}, kNone}, true, "NFS3ERR_NOENT", "REMOVE",
     "unlink(2): REMOVE",
     "nfs_unlink: REMOVE", ""},
    {NfsOp::kRename, "rename", "RENAME", ".renamed", {{"", Presence::kGone}, {".renamed", Presence::kThere}}, true,
     "NFS3ERR_NOENT", "RENAME <step> to <step>.renamed", "rename(2): RENAME",
     "nfs_rename: RENAME <step> to <step>.renamed", ""},
    {NfsOp::kLink, "link", "LINK", ".link", {{".link", Presence::kThere}, kNone}, true, "NFS3ERR_EXIST",
     "LINK <step>.link to <step>'s file handle (its CREATE's, else LOOKUP's)", "link(2): LOOKUP, LINK",
     "nfs_link: LOOKUP of <step>, LINK <step>.link", ""},
    {NfsOp::kCreateExclusive, "create-exclusive", "CREATE", "", {{"", Presence::kThere}, kNone}, false,
     "NFS3ERR_EXIST", "CREATE EXCLUSIVE, createverf3 = client id and seq (big-endian)",
     "open(O_CREAT|O_EXCL): CREATE EXCLUSIVE, verifier jiffies and pid, then SETATTR (NFSv3, Linux "
     "nfs3_proc_create); OPEN EXCLUSIVE4_1 (NFSv4.1)",
     "", "libnfs 4.0 has no CREATE EXCLUSIVE: nfs_create sends O_EXCL as CREATE GUARDED (use create-guarded)"},
    {NfsOp::kWrite, "write", "WRITE", "", {{"", Presence::kWritten}, kNone}, true, nullptr,
     "WRITE FILE_SYNC of 64 fixed bytes at offset 4096 to <step>'s file handle (its CREATE's, else LOOKUP's)",
     "open(O_WRONLY|O_SYNC), pwrite(2) of 64 fixed bytes at offset 4096, close: WRITE FILE_SYNC",
     "nfs_open(O_WRONLY|O_SYNC) (LOOKUP), nfs_pwrite of 64 fixed bytes at offset 4096: WRITE FILE_SYNC, nfs_close", ""},
    {NfsOp::kGetattr, "getattr", "GETATTR", "", {kNone, kNone}, false, nullptr, "GETATTR of the export's root",
     "stat(2) of the mount's root: GETATTR when no attribute cache answers it (the speed view mounts with noac)",
     "nfs_stat64 of the export's root: GETATTR (libnfs's directory cache off)", ""},
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

std::vector<NfsOp> all_ops() {
  std::vector<NfsOp> ops;
  for (const OpRow& r : kOps) ops.push_back(r.op);
  return ops;
}

std::string known_ops_text() {
  std::string out;
  for (const OpRow& r : kOps) out += (out.empty() ? "" : ", ") + std::string(r.name);
  return out;
}

std::vector<NfsOp> parse_ops(const std::string& list) {
  std::vector<NfsOp> ops;
  size_t start = 0;
  while (start <= list.size()) {
    size_t comma = list.find(',', start);
    std::string name = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    auto op = parse_op(name);
    if (!op) throw std::invalid_argument("unknown NFS operation '" + name + "' (" + known_ops_text() + ")");
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

std::string step_name(uint32_t client, uint32_t seq) {
  return "c" + std::to_string(client) + "-s" + std::to_string(seq);
}

std::string second_name(NfsOp op, const std::string& step) {
  const char* suffix = row(op).second;
  return *suffix ? step + suffix : "";
}

std::vector<NfsEffect> effects(NfsOp op, const std::string& step) {
  std::vector<NfsEffect> out;
  for (const EffectRow& e : row(op).effects)
    if (e.suffix) out.push_back({step + e.suffix, e.presence});
  return out;
}

bool needs_step_name(NfsOp op) { return row(op).needs_step_name; }

std::optional<std::string> replay_status(NfsOp op) {
  const char* r = row(op).replay;
  return r ? std::optional<std::string>(r) : std::nullopt;
}

bool idempotent(NfsOp op) { return row(op).replay == nullptr; }

std::string procedure(NfsOp op) { return row(op).procedure; }
std::string wire_words(NfsOp op) { return row(op).wire; }
std::string syscall_words(NfsOp op) { return row(op).syscall; }
std::string libnfs_words(NfsOp op) { return row(op).libnfs; }
std::string no_libnfs_words(NfsOp op) { return row(op).no_libnfs; }

std::string write_bytes() {
  std::string b;
  for (uint32_t i = 0; i < kWriteBytes; ++i) b += static_cast<char>('A' + i % 26);
  return b;
}

std::vector<char> exclusive_verifier(uint32_t client, uint32_t seq) {
  std::vector<char> v(8);
  for (int i = 0; i < 4; ++i) {
    v[i] = static_cast<char>(client >> (24 - 8 * i));
    v[4 + i] = static_cast<char>(seq >> (24 - 8 * i));
  }
  return v;
}

std::optional<std::pair<uint32_t, uint32_t>> parse_step_name(const std::string& name) {
  // "c<client>-s<seq>", both decimal, nothing else.
  auto number = [](const std::string& s) -> std::optional<uint32_t> {
    if (s.empty() || s.size() > 10 || s.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
    uint64_t v = std::stoull(s);
    if (v > 0xffffffffu) return std::nullopt;
    return static_cast<uint32_t>(v);
  };
  size_t dash = name.find("-s");
  if (name.size() < 4 || name[0] != 'c' || dash == std::string::npos) return std::nullopt;
  auto client = number(name.substr(1, dash - 1));
  auto seq = number(name.substr(dash + 2));
  if (!client || !seq) return std::nullopt;
  return std::make_pair(*client, *seq);
}

}  // namespace rpclab::nfs
