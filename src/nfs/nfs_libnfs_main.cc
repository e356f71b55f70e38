// rpclab-nfs-libnfs: the NFS workload of one client through libnfs
// (Debian 12's libnfs 4.0, its synchronous API), NFSv3 over TCP (issue 23:
// the client whose retry is its own: after a reconnect libnfs resends
// every request still outstanding with the same xid). The same steps,
// names, flags and call record as rpclab-nfs-client; each operation row's
// libnfs call (nfs_workload.h libnfs_words: nfs_mkdir2, nfs_rmdir,
// nfs_create(O_EXCL), nfs_unlink, nfs_rename, nfs_link, nfs_open and
// nfs_pwrite, nfs_stat64), its -errno in NFS's words as rpclab-nfs-fsops
// says a system call's (nfs_fs_ops.h answer_of_errno). An operation
// libnfs cannot send (no_libnfs_words) is refused before anything runs.
// The header records the library loaded and its settings (nfs_set_timeout,
// nfs_set_autoreconnect).
//   rpclab-nfs-libnfs --server 10.0.0.1 --export /export --client-id 1 --count 20 --ops mkdir --record c1.jsonl
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/stat.h>

#include <nfsc/libnfs.h>
#include <nfsc/libnfs-raw.h>
#include <nfsc/libnfs-raw-nfs.h>  // NFS_V3

#include <chrono>
#include <csignal>
#include <cstring>
#include <iostream>
#include <memory>

#include "common/cli_support.h"
#include "nfs/nfs_call_record.h"
#include "nfs/nfs_fs_ops.h"
#include "nfs/nfs_workload_flags.h"

#ifndef RPCLAB_LIBNFS_VERSION
#define RPCLAB_LIBNFS_VERSION "unknown"
#endif

namespace {

using rpclab::nfs::FsAnswer;
using rpclab::nfs::NfsOp;

struct ContextDeleter {
  void operator()(nfs_context* c) const { nfs_destroy_context(c); }
};
using Context = std::unique_ptr<nfs_context, ContextDeleter>;

// The shared object libnfs was loaded from (dladdr of one of its functions).
std::string loaded_library() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&nfs_init_context), &info) == 0 || !info.dli_fname) return "";
  return info.dli_fname;
}

// A libnfs sync call's result (0, or -errno) in the call record's words;
// libnfs's own message kept when it failed.
FsAnswer answer(nfs_context* nfs, int rc) {
  FsAnswer a = rpclab::nfs::answer_of_errno(rc < 0 ? -rc : 0);
  if (rc < 0) {
    const char* e = nfs_get_error(nfs);
    if (e && *e) a.detail = e;
  }
  return a;
}

// Opens (or creates) `path`, runs `then` on the handle, closes it; the
// first failure is the call's answer.
template <typename Then>
FsAnswer with_file(nfs_context* nfs, int open_rc, nfsfh* fh, Then then) {
  if (open_rc < 0) return answer(nfs, open_rc);
  int rc = then(fh);
  int closed = nfs_close(nfs, fh);
  return answer(nfs, rc < 0 ? rc : closed);
}

FsAnswer libnfs_call(nfs_context* nfs, NfsOp op, const std::string& name) {
  std::string path = "/" + name;
  std::string second = "/" + rpclab::nfs::second_name(op, name);
  nfsfh* fh = nullptr;
  switch (op) {
    case NfsOp::kMkdir: return answer(nfs, nfs_mkdir2(nfs, path.c_str(), 0755));
    case NfsOp::kRmdir: return answer(nfs, nfs_rmdir(nfs, path.c_str()));
    case NfsOp::kCreateGuarded: {
      int rc = nfs_create(nfs, path.c_str(), O_EXCL, 0644, &fh);
      return with_file(nfs, rc, fh, [](nfsfh*) { return 0; });
    }
    case NfsOp::kRemove: return answer(nfs, nfs_unlink(nfs, path.c_str()));
    case NfsOp::kRename: return answer(nfs, nfs_rename(nfs, path.c_str(), second.c_str()));
    case NfsOp::kLink: return answer(nfs, nfs_link(nfs, path.c_str(), second.c_str()));
    case NfsOp::kWrite: {
      int rc = nfs_open(nfs, path.c_str(), O_WRONLY | O_SYNC, &fh);
      return with_file(nfs, rc, fh, [nfs](nfsfh* f) {
        std::string bytes = rpclab::nfs::write_bytes();
        int n = nfs_pwrite(nfs, f, rpclab::nfs::kWriteOffset, bytes.size(), bytes.data());
        if (n < 0) return n;
        return n == static_cast<int>(bytes.size()) ? 0 : -EIO;  // a short FILE_SYNC write: told it failed
      });
    }
    case NfsOp::kGetattr: {
      struct nfs_stat_64 st {};
      return answer(nfs, nfs_stat64(nfs, "/", &st));
    }
    case NfsOp::kCreateExclusive: break;  // refused before the workload (no_libnfs_words)
  }
  throw std::logic_error(rpclab::nfs::op_name(op) + ": " + rpclab::nfs::no_libnfs_words(op));
}

}  // namespace

int main(int argc, char** argv) {
  using namespace rpclab;
  CLI::App app{"the NFS workload through libnfs (NFSv3 over TCP): numbered non-idempotent operations, one record of "
               "what each was told",
               "rpclab-nfs-libnfs"};
  add_version_flags(app);
  std::string server, export_path = "/export";
  int timeout_ms = 5000;
  int autoreconnect = -1;
  nfs::WorkloadFlags w;
  app.add_option("--server", server, "the NFS server's address (MOUNT and NFS found through its rpcbind)")->required();
  app.add_option("--export", export_path, "the export's path, for MOUNT's MNT")->capture_default_str();
  nfs::add_workload_flags(app, w);
  app.add_option("--timeout-ms", timeout_ms, "nfs_set_timeout: a call's whole time before libnfs gives up (libnfs "
                 "counts it in whole seconds: rounded up to one)")
      ->check(in_range(1, 3600000))->capture_default_str();
  app.add_option("--autoreconnect", autoreconnect, "nfs_set_autoreconnect: reconnects after the connection breaks "
                 "(-1: without end, 0: none), each resending every outstanding request with its xid")
      ->check(in_range(-1, 1000000))->capture_default_str();
  parse_or_exit(app, argc, argv);
  nfs::parse_workload_ops_or_exit(w, "rpclab-nfs-libnfs");
  nlohmann::json wire = nlohmann::json::object();  // what each operation is, as libnfs sends it
  for (nfs::NfsOp op : w.ops) {
    std::string words = nfs::libnfs_words(op);
    if (words.empty()) {
      std::cerr << "rpclab-nfs-libnfs: --ops: " << nfs::op_name(op) << ": " << nfs::no_libnfs_words(op) << "\n";
      return kExitUsage;
    }
    wire[nfs::op_name(op)] = words;
  }

  // libnfs counts its timeout in whole seconds (libnfs.h, nfs_set_timeout).
  int timeout_set_ms = (timeout_ms + 999) / 1000 * 1000;
  nfs::NfsCallRecord record;
  record.header = {{"client_id", w.client_id}, {"server", server}, {"transport", "tcp"}, {"export", export_path},
                   {"ops", nfs::ops_text(w.ops)}, {"count", w.count}, {"warmup", w.warmup},
                   {"calls", "libnfs"}, {"wire", wire},
                   {"libnfs", {{"version", RPCLAB_LIBNFS_VERSION}, {"library", loaded_library()},
                               {"nfs_version", 3}, {"timeout_ms_asked", timeout_ms}, {"autoreconnect", autoreconnect},
                               {"dircache", false}}}};
  // A write on a connection the server reset must fail with EPIPE, not end the program.
  std::signal(SIGPIPE, SIG_IGN);
  auto t0 = std::chrono::steady_clock::now();
  Context nfs(nfs_init_context());
  auto setup_failed = [&](const std::string& why) {
    std::cerr << "rpclab-nfs-libnfs: " << why << "\n";
    record.header["setup_error"] = why;
    record.header["wall_ns"] = nfs::ns_since(t0);
    record.write_file(w.record_path);
    return kExitSetup;
  };
  if (!nfs) return setup_failed("nfs_init_context failed");
  if (nfs_set_version(nfs.get(), NFS_V3) != 0) return setup_failed("nfs_set_version(NFS_V3) failed");
  nfs_set_timeout(nfs.get(), timeout_set_ms);
  nfs_set_autoreconnect(nfs.get(), autoreconnect);
  nfs_set_dircache(nfs.get(), 0);  // every LOOKUP and GETATTR on the wire
  record.header["libnfs"]["timeout_ms"] = nfs_get_timeout(nfs.get());
  if (int rc = nfs_mount(nfs.get(), server.c_str(), export_path.c_str()); rc != 0)
    return setup_failed("nfs_mount " + server + ":" + export_path + ": " + std::strerror(-rc) + " (" +
                        nfs_get_error(nfs.get()) + ")");
  nfs::record_steps_after_warmup(record, w.client_id, w.warmup, w.count, w.ops, t0,
                                 [&nfs](nfs::NfsOp op, const std::string& name, nfs::NfsCall&) {
                                   return libnfs_call(nfs.get(), op, name);
                                 });
  record.header["wall_ns"] = nfs::ns_since(t0);
  record.write_file(w.record_path);
  return kExitOk;
}
