#include "nfs/nfs3_client.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>

#include "common/inet.h"
#include "nfs3_prot.h"

namespace rpclab::nfs {

namespace {

timeval to_timeval(int ms) { return timeval{ms / 1000, (ms % 1000) * 1000}; }

sockaddr_in address_of(const std::string& host, uint16_t port) {
  addrinfo hints{};
  hints.ai_family = AF_INET;
  addrinfo* found = nullptr;
  if (int rc = getaddrinfo(host.c_str(), nullptr, &hints, &found); rc != 0)
    throw std::runtime_error("cannot resolve '" + host + "': " + gai_strerror(rc));
  sockaddr_in addr = *reinterpret_cast<sockaddr_in*>(found->ai_addr);
  freeaddrinfo(found);
  addr.sin_port = htons(port);
  return addr;
}

std::string create_error(const std::string& what) {
  return what + ": " + clnt_spcreateerror("");
}

void use_unix_auth(CLIENT* clnt) {
  AUTH* auth = authunix_create_default();
  if (!auth) throw std::runtime_error("cannot make AUTH_UNIX credentials");
  clnt->cl_auth = auth;
}

void set_timeouts(CLIENT* clnt, const Nfs3Options& o) {
  timeval total = to_timeval(o.timeout_ms);
  clnt_control(clnt, CLSET_TIMEOUT, reinterpret_cast<char*>(&total));
  if (o.transport == "udp") {
    timeval retry = to_timeval(o.retransmit_ms);
    clnt_control(clnt, CLSET_RETRY_TIMEOUT, reinterpret_cast<char*>(&retry));
  }
}

// Our own socket, so the handle does not walk the reserved ports
// (bindresvport) as root; connected for TCP.
CLIENT* open_nfs(const Nfs3Options& o) {
  sockaddr_in addr = address_of(o.host, o.nfs_port);
  netbuf nb{sizeof addr, sizeof addr, &addr};
  bool udp = o.transport == "udp";
  int fd = ::socket(AF_INET, (udp ? SOCK_DGRAM : SOCK_STREAM) | SOCK_CLOEXEC, 0);
  if (fd < 0) throw std::runtime_error(std::string("socket: ") + std::strerror(errno));
  if (!udp && ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    std::string why = std::strerror(errno);
    ::close(fd);
    throw std::runtime_error("cannot connect to " + o.host + ":" + std::to_string(o.nfs_port) + ": " + why);
  }
  CLIENT* clnt = udp ? clnt_dg_create(fd, &nb, NFS_PROGRAM, NFS_V3, 0, 0)
                     : clnt_vc_create(fd, &nb, NFS_PROGRAM, NFS_V3, 0, 0);
  if (!clnt) {
    ::close(fd);
    throw std::runtime_error(create_error("cannot create the NFS client handle"));
  }
  clnt_control(clnt, CLSET_FD_CLOSE, nullptr);
  return clnt;
}

// `call` (one stub call on `clnt`) under the UDP guard of nfs3_client.h;
// counts into `r`. TCP, or raw: the call as it is.
template <typename Call>
enum clnt_stat guarded(CLIENT* clnt, const Nfs3Options& options, Call call, Nfs3Reply& r) {
  // The call's XID, read after it: clnt_dg and clnt_vc both keep the last
  // call's (CLGET_XID), and the guard's retries below reuse it.
  auto note_xid = [clnt, &r] {
    u_int x = 0;
    clnt_control(clnt, CLGET_XID, reinterpret_cast<char*>(&x));
    r.xid = x;
  };
  if (options.transport != "udp" || options.raw_clnt_dg) {
    enum clnt_stat stat = call();
    note_xid();
    return stat;
  }
  using Clock = std::chrono::steady_clock;
  auto deadline = Clock::now() + std::chrono::milliseconds(options.timeout_ms);
  int fd = -1;
  clnt_control(clnt, CLGET_FD, reinterpret_cast<char*>(&fd));
  u_int xid = 0;
  clnt_control(clnt, CLGET_XID, reinterpret_cast<char*>(&xid));  // the last call's; clnt_dg adds 1
  accept_only_xid(fd, xid + 1);
  r.stale_replies += static_cast<uint32_t>(drop_stale_replies(fd, xid + 1));
  enum clnt_stat stat = call();
  bool shortened = false;
  while (stat == RPC_TIMEDOUT) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) break;
    ++r.early_timeouts;
    clnt_control(clnt, CLGET_XID, reinterpret_cast<char*>(&xid));  // the call's
    clnt_control(clnt, CLSET_XID, reinterpret_cast<char*>(&xid));  // the next call's: the same
    r.stale_replies += static_cast<uint32_t>(drop_stale_replies(fd, xid));
    timeval rest = to_timeval(static_cast<int>(left));
    clnt_control(clnt, CLSET_TIMEOUT, reinterpret_cast<char*>(&rest));
    shortened = true;
    stat = call();
  }
  note_xid();
  if (shortened) set_timeouts(clnt, options);
  return stat;
}

std::vector<char> mount_root(const Nfs3Options& o, const std::string& export_path) {
  const std::string& transport = o.mount_transport.empty() ? o.transport : o.mount_transport;
  CLIENT* clnt = clnt_create(o.host.c_str(), MOUNT_PROGRAM, MOUNT_V3, transport.c_str());
  if (!clnt) throw std::runtime_error(create_error("cannot reach MOUNT v3 on " + o.host + " through rpcbind"));
  use_unix_auth(clnt);
  // The retransmit interval too: clnt_dg's own (15 s) is longer than a
  // call's whole time, so under loss MNT over UDP was sent once.
  // The mount is setup, not a measured call: it may take longer than one
  // (a TCP connect under loss waits 1 s, 2 s, ... per lost SYN).
  Nfs3Options mount = o;
  mount.transport = transport;
  mount.timeout_ms = std::max(o.timeout_ms, 30000);
  set_timeouts(clnt, mount);
  // The same guard as the NFS calls when MNT goes over UDP (rpcbind's
  // reply and its duplicates under dup).
  dirpath path = const_cast<char*>(export_path.c_str());
  mountres3 res{};
  Nfs3Reply counts;
  enum clnt_stat stat = guarded(clnt, mount, [&] { return mountproc3_mnt_3(&path, &res, clnt); }, counts);
  std::string error;
  std::vector<char> root;
  if (stat != RPC_SUCCESS)
    error = std::string("MNT ") + export_path + ": " + clnt_sperrno(stat);
  else if (res.fhs_status != MNT3_OK)
    error = "MNT " + export_path + ": status " + std::to_string(res.fhs_status);
  else
    root.assign(res.mountres3_u.mountinfo.fhandle.fhandle3_val,
                res.mountres3_u.mountinfo.fhandle.fhandle3_val + res.mountres3_u.mountinfo.fhandle.fhandle3_len);
  if (stat == RPC_SUCCESS) clnt_freeres(clnt, reinterpret_cast<xdrproc_t>(xdr_mountres3), reinterpret_cast<char*>(&res));
  auth_destroy(clnt->cl_auth);
  clnt_destroy(clnt);
  if (!error.empty()) throw std::runtime_error(error);
  return root;
}

sattr3 attributes(uint32_t mode) {
  sattr3 a{};
  a.mode.set_it = TRUE;
  a.mode.set_mode3_u.mode = mode;
  a.atime.set_it = DONT_CHANGE;
  a.mtime.set_it = DONT_CHANGE;
  return a;
}

// The reply's status, or what the library said instead, into `r`.
template <typename Res>
Nfs3Reply told(CLIENT* clnt, enum clnt_stat stat, Res& res, xdrproc_t free_res, Nfs3Reply r) {
  if (stat == RPC_SUCCESS) {
    r.nfs = nfsstat3_name(res.status);
    clnt_freeres(clnt, free_res, reinterpret_cast<char*>(&res));
  } else {
    r.rpc = stat == RPC_TIMEDOUT ? "timeout" : "error";
    r.detail = clnt_sperrno(stat);
  }
  return r;
}

}  // namespace

std::string nfsstat3_name(int status) {
  switch (status) {
    case NFS3_OK: return "NFS3_OK";
    case NFS3ERR_PERM: return "NFS3ERR_PERM";
    case NFS3ERR_NOENT: return "NFS3ERR_NOENT";
    case NFS3ERR_IO: return "NFS3ERR_IO";
    case NFS3ERR_ACCES: return "NFS3ERR_ACCES";
    case NFS3ERR_EXIST: return "NFS3ERR_EXIST";
    case NFS3ERR_NOTDIR: return "NFS3ERR_NOTDIR";
    case NFS3ERR_ISDIR: return "NFS3ERR_ISDIR";
    case NFS3ERR_INVAL: return "NFS3ERR_INVAL";
    case NFS3ERR_NOSPC: return "NFS3ERR_NOSPC";
    case NFS3ERR_ROFS: return "NFS3ERR_ROFS";
    case NFS3ERR_NAMETOOLONG: return "NFS3ERR_NAMETOOLONG";
    case NFS3ERR_NOTEMPTY: return "NFS3ERR_NOTEMPTY";
    case NFS3ERR_STALE: return "NFS3ERR_STALE";
    case NFS3ERR_BADHANDLE: return "NFS3ERR_BADHANDLE";
    case NFS3ERR_NOTSUPP: return "NFS3ERR_NOTSUPP";
    case NFS3ERR_SERVERFAULT: return "NFS3ERR_SERVERFAULT";
    case NFS3ERR_JUKEBOX: return "NFS3ERR_JUKEBOX";
    default: return "NFS3ERR_" + std::to_string(status);
  }
}

namespace {

void check_transport(const Nfs3Options& o) {
  if (o.transport != "udp" && o.transport != "tcp")
    throw std::invalid_argument("transport must be udp or tcp, not '" + o.transport + "'");
}

}  // namespace

Nfs3Client::Nfs3Client(const Nfs3Options& options, const std::string& export_path) : options_(options) {
  check_transport(options);
  root_ = mount_root(options, export_path);
  open();
}

Nfs3Client::Nfs3Client(const Nfs3Options& options, std::vector<char> root_handle)
    : options_(options), root_(std::move(root_handle)) {
  check_transport(options);
  open();
}

void Nfs3Client::open() {
  clnt_ = open_nfs(options_);
  use_unix_auth(clnt_);
  set_timeouts(clnt_, options_);
}

Nfs3Client::~Nfs3Client() {
  if (!clnt_) return;
  auth_destroy(clnt_->cl_auth);
  clnt_destroy(clnt_);
}

Nfs3Reply Nfs3Client::null_call() {
  Nfs3Reply r;
  enum clnt_stat stat = guarded(clnt_, options_, [&] { return nfsproc3_null_3(nullptr, nullptr, clnt_); }, r);
  if (stat != RPC_SUCCESS) {
    r.rpc = stat == RPC_TIMEDOUT ? "timeout" : "error";
    r.detail = clnt_sperrno(stat);
  }
  return r;
}

namespace {

nfs_fh3 fh_of(std::vector<char>& h) {
  nfs_fh3 fh{};
  fh.data.data_len = static_cast<u_int>(h.size());
  fh.data.data_val = h.data();
  return fh;
}

std::vector<char> bytes_of(const nfs_fh3& fh) {
  return std::vector<char>(fh.data.data_val, fh.data.data_val + fh.data.data_len);
}

}  // namespace

std::optional<std::vector<char>> Nfs3Client::handle_of(const std::string& name, Nfs3Reply& r) {
  if (auto it = handles_.find(name); it != handles_.end()) return it->second;
  LOOKUP3args args{};
  args.what.dir = fh_of(root_);
  args.what.name = const_cast<char*>(name.c_str());
  LOOKUP3res res{};
  enum clnt_stat stat = guarded(clnt_, options_, [&] { return nfsproc3_lookup_3(&args, &res, clnt_); }, r);
  std::optional<std::vector<char>> found;
  if (stat == RPC_SUCCESS && res.status == NFS3_OK) found = handles_[name] = bytes_of(res.LOOKUP3res_u.resok.object);
  if (!found) {
    r = told(clnt_, stat, res, reinterpret_cast<xdrproc_t>(xdr_LOOKUP3res), r);
    r.detail = "LOOKUP " + name + (r.detail.empty() ? "" : ": " + r.detail);
  } else {
    clnt_freeres(clnt_, reinterpret_cast<xdrproc_t>(xdr_LOOKUP3res), reinterpret_cast<char*>(&res));
  }
  return found;
}

Nfs3Reply Nfs3Client::call(NfsOp op, const std::string& name) {
  diropargs3 where{};
  where.dir = fh_of(root_);
  where.name = const_cast<char*>(name.c_str());
  std::string second = second_name(op, name);
  diropargs3 to = where;
  to.name = const_cast<char*>(second.c_str());
  Nfs3Reply r;
  // A creator's reply carries the new object's handle (post_op_fh3): kept for LINK and WRITE.
  auto keep = [&](const post_op_fh3& obj) {
    if (obj.handle_follows) handles_[name] = bytes_of(obj.post_op_fh3_u.handle);
  };
  switch (op) {
    case NfsOp::kMkdir: {
      MKDIR3args args{where, attributes(0755)};
      MKDIR3res res{};
      enum clnt_stat stat = guarded(clnt_, options_, [&] { return nfsproc3_mkdir_3(&args, &res, clnt_); }, r);
      if (stat == RPC_SUCCESS && res.status == NFS3_OK) keep(res.MKDIR3res_u.resok.obj);
      return told(clnt_, stat, res, reinterpret_cast<xdrproc_t>(xdr_MKDIR3res), r);
    }
    case NfsOp::kRmdir: {
      handles_.erase(name);
      RMDIR3args args{where};
      RMDIR3res res{};
      enum clnt_stat stat = guarded(clnt_, options_, [&] { return nfsproc3_rmdir_3(&args, &res, clnt_); }, r);
      return told(clnt_, stat, res, reinterpret_cast<xdrproc_t>(xdr_RMDIR3res), r);
    }
    case NfsOp::kCreateGuarded:
    case NfsOp::kCreateExclusive: {
      CREATE3args args{};
      args.where = where;
      if (op == NfsOp::kCreateGuarded) {
        args.how.mode = GUARDED;
        args.how.createhow3_u.obj_attributes = attributes(0644);
      } else {
        auto step = parse_step_name(name);
        if (!step) throw std::invalid_argument("CREATE EXCLUSIVE needs a step name (c<client>-s<seq>), not '" + name + "'");
        args.how.mode = EXCLUSIVE;
        std::vector<char> verf = exclusive_verifier(step->first, step->second);
        std::copy(verf.begin(), verf.end(), args.how.createhow3_u.verf);
      }
      CREATE3res res{};
      enum clnt_stat stat = guarded(clnt_, options_, [&] { return nfsproc3_create_3(&args, &res, clnt_); }, r);
      if (stat == RPC_SUCCESS && res.status == NFS3_OK) keep(res.CREATE3res_u.resok.obj);
      return told(clnt_, stat, res, reinterpret_cast<xdrproc_t>(xdr_CREATE3res), r);
    }
    case NfsOp::kRemove: {
      handles_.erase(name);
      REMOVE3args args{where};
      REMOVE3res res{};
      enum clnt_stat stat = guarded(clnt_, options_, [&] { return nfsproc3_remove_3(&args, &res, clnt_); }, r);
      return told(clnt_, stat, res, reinterpret_cast<xdrproc_t>(xdr_REMOVE3res), r);
    }
    case NfsOp::kRename: {
      handles_.erase(name);
      RENAME3args args{where, to};
      RENAME3res res{};
      enum clnt_stat stat = guarded(clnt_, options_, [&] { return nfsproc3_rename_3(&args, &res, clnt_); }, r);
      return told(clnt_, stat, res, reinterpret_cast<xdrproc_t>(xdr_RENAME3res), r);
    }
    case NfsOp::kLink: {
      auto file = handle_of(name, r);
      if (!file) return r;
      LINK3args args{fh_of(*file), to};
      LINK3res res{};
      enum clnt_stat stat = guarded(clnt_, options_, [&] { return nfsproc3_link_3(&args, &res, clnt_); }, r);
      return told(clnt_, stat, res, reinterpret_cast<xdrproc_t>(xdr_LINK3res), r);
    }
    case NfsOp::kWrite: {
      auto file = handle_of(name, r);
      if (!file) return r;
      std::string bytes = write_bytes();
      WRITE3args args{};
      args.file = fh_of(*file);
      args.offset = kWriteOffset;
      args.count = static_cast<count3>(bytes.size());
      args.stable = FILE_SYNC;
      args.data.data_len = static_cast<u_int>(bytes.size());
      args.data.data_val = bytes.data();
      WRITE3res res{};
      enum clnt_stat stat = guarded(clnt_, options_, [&] { return nfsproc3_write_3(&args, &res, clnt_); }, r);
      return told(clnt_, stat, res, reinterpret_cast<xdrproc_t>(xdr_WRITE3res), r);
    }
    case NfsOp::kGetattr: {  // the export's root (nfs_workload.h)
      GETATTR3args args{where.dir};
      GETATTR3res res{};
      enum clnt_stat stat = guarded(clnt_, options_, [&] { return nfsproc3_getattr_3(&args, &res, clnt_); }, r);
      return told(clnt_, stat, res, reinterpret_cast<xdrproc_t>(xdr_GETATTR3res), r);
    }
  }
  throw std::logic_error("NfsOp without a call");
}

}  // namespace rpclab::nfs
