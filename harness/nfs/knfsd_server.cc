#include "harness/nfs/knfsd_server.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "harness/nfs/server_ready.h"
#include "netem/topology/uml_guest.h"
#include "process/command_runner.h"

namespace rpclab::harness::nfs {

namespace {

constexpr const char* kRpcNfsd = "/usr/sbin/rpc.nfsd";
constexpr const char* kExportfs = "/usr/sbin/exportfs";
constexpr const char* kMountd = "/usr/sbin/rpc.mountd";
constexpr const char* kRpcbind = "/usr/sbin/rpcbind";
constexpr const char* kThreads = "4";
// NFSv3 over both transports (UDP is where a lost reply means a
// retransmission the reply cache must catch), NFSv4 and 4.1 over TCP.
const std::vector<std::string> kNfsdFlags = {"--udp", "--tcp", "-V", "3", "-V", "4", "-V", "4.1"};

// RFC 1813's procedure numbers, in the order of /proc/net/rpc/nfsd's proc3.
constexpr const char* kProc3[] = {"NULL",   "GETATTR", "SETATTR",  "LOOKUP", "ACCESS",  "READLINK",
                                  "READ",   "WRITE",   "CREATE",   "MKDIR",  "SYMLINK", "MKNOD",
                                  "REMOVE", "RMDIR",   "RENAME",   "LINK",   "READDIR", "READDIRPLUS",
                                  "FSSTAT", "FSINFO",  "PATHCONF", "COMMIT"};

// RFC 8881's operation numbers (section 16), in the order of
// /proc/net/rpc/nfsd's proc4ops (0-2 are unused); 4.2's past 58 are "OP<n>".
constexpr const char* kProc4Ops[] = {
    "OP0",          "OP1",           "OP2",           "ACCESS",           "CLOSE",
    "COMMIT",       "CREATE",        "DELEGPURGE",    "DELEGRETURN",      "GETATTR",
    "GETFH",        "LINK",          "LOCK",          "LOCKT",            "LOCKU",
    "LOOKUP",       "LOOKUPP",       "NVERIFY",       "OPEN",             "OPENATTR",
    "OPEN_CONFIRM", "OPEN_DOWNGRADE", "PUTFH",        "PUTPUBFH",         "PUTROOTFH",
    "READ",         "READDIR",       "READLINK",      "REMOVE",           "RENAME",
    "RENEW",        "RESTOREFH",     "SAVEFH",        "SECINFO",          "SETATTR",
    "SETCLIENTID",  "SETCLIENTID_CONFIRM", "VERIFY",  "WRITE",            "RELEASE_LOCKOWNER",
    "BACKCHANNEL_CTL", "BIND_CONN_TO_SESSION", "EXCHANGE_ID", "CREATE_SESSION", "DESTROY_SESSION",
    "FREE_STATEID", "GET_DIR_DELEGATION", "GETDEVICEINFO", "GETDEVICELIST", "LAYOUTCOMMIT",
    "LAYOUTGET",    "LAYOUTRETURN",  "SECINFO_NO_NAME", "SEQUENCE",       "SET_SSV",
    "TEST_STATEID", "WANT_DELEGATION", "DESTROY_CLIENTID", "RECLAIM_COMPLETE"};

// "proc3 22 n0 n1 ...": the first number says how many follow, named by `names`.
template <size_t N>
nlohmann::json named_counts(const std::vector<uint64_t>& v, const char* const (&names)[N]) {
  nlohmann::json ops = nlohmann::json::object();
  for (size_t i = 0; !v.empty() && i < v[0] && i + 1 < v.size(); ++i)
    ops[i < N ? std::string(names[i]) : "OP" + std::to_string(i)] = v[i + 1];
  return ops;
}

// The workload's operations as the server's counters name them: NFSv3's
// procedure (proc3) and NFSv4's operation (proc4ops).
struct OpCounterRow {
  rpclab::nfs::NfsOp op;
  const char* proc3;
  const char* proc4op;
};
constexpr OpCounterRow kOpCounters[] = {
    {rpclab::nfs::NfsOp::kGetattr, "GETATTR", "GETATTR"},
    {rpclab::nfs::NfsOp::kMkdir, "MKDIR", "CREATE"},
    {rpclab::nfs::NfsOp::kRmdir, "RMDIR", "REMOVE"},
    {rpclab::nfs::NfsOp::kRemove, "REMOVE", "REMOVE"},
};

bool exists(const std::string& path) { return ::access(path.c_str(), F_OK) == 0; }

// "cache hits:   3" -> {"cache_hits": 3}
nlohmann::json reply_cache_stats(const std::string& text) {
  nlohmann::json j = nlohmann::json::object();
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = line.substr(0, colon);
    for (char& c : key) c = c == ' ' ? '_' : c;
    try {
      j[key] = std::stoull(line.substr(colon + 1));
    } catch (const std::exception&) {
    }
  }
  return j;
}

void rpc_nfsd_lines(const std::string& text, nlohmann::json& j) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::string tag;
    words >> tag;
    std::vector<uint64_t> v;
    for (uint64_t n; words >> n;) v.push_back(n);
    if (tag == "rc" && v.size() >= 3) {
      j["rc"] = {{"hits", v[0]}, {"misses", v[1]}, {"nocache", v[2]}};
    } else if (tag == "proc3" && !v.empty()) {
      j["proc3"] = named_counts(v, kProc3);
    } else if (tag == "proc4" && !v.empty()) {  // NULL, COMPOUND: one per RPC
      static constexpr const char* kProc4[] = {"NULL", "COMPOUND"};
      j["proc4"] = named_counts(v, kProc4);
    } else if (tag == "proc4ops" && !v.empty()) {  // one per operation in a COMPOUND
      j["proc4ops"] = named_counts(v, kProc4Ops);
    }
  }
}

}  // namespace

std::string knfsd_missing() {
  if (::access(netem::kUmlKernel, X_OK) != 0)
    return std::string(netem::kUmlKernel) + " is missing (apt-get install user-mode-linux): this kernel has no nfsd";
  std::string version = netem::find_uml_modules_version();
  std::string nfsd = "/usr/lib/uml/modules/" + version + "/kernel/fs/nfsd/nfsd.ko";
  if (version.empty() || !exists(nfsd))
    return "no nfsd module for the user-mode-linux kernel (" + nfsd + "; apt-get install user-mode-linux)";
  for (const char* p : {kRpcNfsd, kExportfs, kMountd})
    if (::access(p, X_OK) != 0)
      return std::string(p) + " is missing (apt-get install nfs-kernel-server, with a policy-rc.d that keeps its "
                              "service from starting: see tools/deps.sh)";
  if (::access(kRpcbind, X_OK) != 0) return "rpcbind is missing (apt-get install rpcbind)";
  return "";
}

std::vector<std::string> knfsd_guest_modules() { return {"nfsd"}; }  // modprobe brings sunrpc, lockd, grace, ...

KnfsdServer::KnfsdServer(const NfsServerOptions& options, process::CommandLog& log,
                         std::chrono::milliseconds ready_within)
    : options_(options), log_(log) {
  if (std::string why = knfsd_missing(); !why.empty()) throw std::runtime_error(why);
  if (!exists("/proc/fs/nfsd"))
    throw std::runtime_error("no /proc/fs/nfsd: knfsd runs inside the user-mode-linux guest with nfsd loaded");
  std::filesystem::create_directories(options.work_dir);
  std::string dir = std::filesystem::absolute(options.work_dir).lexically_normal().string();  // no "//" in exports
  if (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  export_path_ = dir + "/export";
  err_path_ = dir + "/knfsd.err";
  std::filesystem::create_directories(export_path_);
  // The nfsv4 lease and grace are short so a v4.1 client is not held up
  // for 90 s after a start or restart.
  std::string script = fmt::format(
      "set -e; mount -t tmpfs tmpfs /run; mount -t tmpfs tmpfs /var/lib/nfs; "
      "mkdir -p /run/rpcbind /var/lib/nfs/rpc_pipefs /var/lib/nfs/v4recovery; "
      "touch /var/lib/nfs/etab /var/lib/nfs/rmtab; mount -t tmpfs tmpfs {0}; "
      "mount -t nfsd nfsd /proc/fs/nfsd; mount -t rpc_pipefs rpc_pipefs /var/lib/nfs/rpc_pipefs; "
      "echo 10 > /proc/fs/nfsd/nfsv4leasetime; echo 10 > /proc/fs/nfsd/nfsv4gracetime; "
      "{1} -w -f & while [ ! -S /run/rpcbind.sock ]; do sleep 0.05; done; "
      "{2} -o rw,no_root_squash,insecure,no_subtree_check,fsid=0 '*:{0}'; "
      "{3} -F & {4} {5}; echo nfsd: $(cat /proc/fs/nfsd/versions) >&2; wait",
      export_path_, kRpcbind, kExportfs, kMountd, process::shell_line({kRpcNfsd}),
      process::shell_line(kNfsdFlags) + " " + kThreads);
  process::SpawnOptions spawn;
  spawn.netns = options.netns;
  spawn.stdout_path = dir + "/knfsd.out";
  spawn.stderr_path = err_path_;
  child_ = std::make_unique<process::ChildProcess>(
      std::vector<std::string>{"unshare", "-m", "--propagation", "private", "sh", "-c", script}, spawn, log);
  // ip netns exec and unshare exec in place: the child is the shell.
  seen_export_ = "/proc/" + std::to_string(child_->pid()) + "/root" + export_path_;
  wait_until_served("knfsd", options.address, options.client_netns, {"udp", "tcp"}, *child_, ready_within,
                    [this] { return log_tail(); }, log);
}

KnfsdServer::~KnfsdServer() {
  // The threads first, while the shell still holds the nfsd mount.
  if (child_ && child_->running()) std::ofstream(nfsd_file("threads")) << "0\n";
}

std::string KnfsdServer::nfsd_file(const std::string& name) const {
  return "/proc/" + std::to_string(child_->pid()) + "/root/proc/fs/nfsd/" + name;
}

std::string KnfsdServer::state() {
  if (auto status = child_->poll()) return process::describe_wait_status(*status);
  std::string threads = read_text(nfsd_file("threads"));
  return std::atoi(threads.c_str()) > 0 ? "running" : "no nfsd threads";
}

std::string KnfsdServer::log_tail(size_t lines) const { return file_tail(err_path_, lines); }

nlohmann::json KnfsdServer::counters() {
  nlohmann::json j = nlohmann::json::object();
  if (!child_->running()) return j;
  j["reply_cache"] = reply_cache_stats(read_text(nfsd_file("reply_cache_stats")));
  // /proc/<pid>/net is that process's network namespace: the server's.
  rpc_nfsd_lines(read_text("/proc/" + std::to_string(child_->pid()) + "/net/rpc/nfsd"), j);
  j["threads"] = std::atoi(read_text(nfsd_file("threads")).c_str());
  return j;
}

void KnfsdServer::restart() {
  std::vector<std::string> in_ns = {"nsenter", "-t", std::to_string(child_->pid()), "-m", "-n", kRpcNfsd};
  std::vector<std::string> stop = in_ns;
  stop.push_back("0");
  process::run_checked(stop, log_);
  std::vector<std::string> start = in_ns;
  start.insert(start.end(), kNfsdFlags.begin(), kNfsdFlags.end());
  start.push_back(kThreads);
  process::run_checked(start, log_);
  // Asked from the server's own namespace: a restart event drops every
  // packet to the client meanwhile (restart_event.h).
  wait_until_served("knfsd (restarted)", options_.address, options_.netns, {"udp", "tcp"}, *child_,
                    std::chrono::seconds(20), [this] { return log_tail(); }, log_);
}

std::optional<NfsServer::OpCount> KnfsdServer::op_count_between(const nlohmann::json& before,
                                                                const nlohmann::json& after,
                                                                const std::string& version,
                                                                rpclab::nfs::NfsOp op) const {
  for (const OpCounterRow& row : kOpCounters) {
    if (row.op != op) continue;
    std::string group = version == "3" ? "proc3" : "proc4ops";
    std::string name = version == "3" ? row.proc3 : row.proc4op;
    // not a record: counters() above, /proc/net/rpc/nfsd's lines
    auto read = [&](const nlohmann::json& c) -> std::optional<uint64_t> {
      auto g = c.find(group);
      if (g == c.end() || !g->contains(name)) return std::nullopt;
      return g->at(name).get<uint64_t>();  // not a record: the same
    };
    std::optional<uint64_t> b = read(before), a = read(after);
    if (!a || !b || *a < *b) return std::nullopt;
    return OpCount{*a - *b, group + " " + name};
  }
  return std::nullopt;
}

std::optional<uint64_t> KnfsdServer::cache_hits_between(const nlohmann::json& before,
                                                        const nlohmann::json& after) const {
  auto hits = [](const nlohmann::json& c) -> std::optional<uint64_t> {
    auto group = c.find("reply_cache");  // not a record: counters() above, /proc/fs/nfsd/reply_cache_stats
    if (group == c.end() || !group->contains("cache_hits")) return std::nullopt;
    return group->at("cache_hits").get<uint64_t>();  // not a record: the same
  };
  std::optional<uint64_t> b = hits(before), a = hits(after);
  if (!a || !b || *a < *b) return std::nullopt;
  return *a - *b;
}

}  // namespace rpclab::harness::nfs
