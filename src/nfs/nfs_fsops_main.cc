// rpclab-nfs-fsops: the NFS workload of one client on a mounted file system
// (issue 23: the Linux kernel client's row). The same steps and names as
// rpclab-nfs-client (for seq = 1..N, the operations of --ops on
// c<client>-s<seq>), done with system calls in --dir (each operation
// row's syscall_words: mkdir(2), rmdir(2), open(O_CREAT|O_EXCL), unlink(2),
// rename(2), link(2), pwrite(2)); create-guarded has none (Linux's NFSv3
// client sends open(O_CREAT|O_EXCL) as CREATE EXCLUSIVE) and is refused.
// The same call record
// (src/nfs/nfs_call_record.h), errno in NFS's words (src/nfs/nfs_fs_ops.h).
// The mount is the caller's (harness/nfs/nfs_clients.cc mounts it); its
// options are recorded in the header when given.
//   rpclab-nfs-fsops --dir /mnt/nfs --client-id 1 --count 20 --ops mkdir --record c1.jsonl
#include <iostream>

#include "common/cli_support.h"
#include "nfs/nfs_call_record.h"
#include "nfs/nfs_fs_ops.h"
#include "nfs/nfs_workload_flags.h"

int main(int argc, char** argv) {
  using namespace rpclab;
  CLI::App app{"the NFS workload on a mounted file system: numbered non-idempotent system calls, one record of what "
               "each was told",
               "rpclab-nfs-fsops"};
  add_version_flags(app);
  std::string dir, mount_options;
  nfs::WorkloadFlags w;
  app.add_option("--dir", dir, "the directory the names are made in (the mount's root)")
      ->required()->check(CLI::ExistingDirectory);
  nfs::add_workload_flags(app, w);
  app.add_option("--mount-options", mount_options, "the mount's options, for the record's header (e.g. vers=3,proto=tcp,timeo=5)");
  parse_or_exit(app, argc, argv);
  nfs::parse_workload_ops_or_exit(w, "rpclab-nfs-fsops");
  nlohmann::json wire = nlohmann::json::object();  // what each operation is, as the kernel client sends it
  for (nfs::NfsOp op : w.ops) {
    std::string words = nfs::syscall_words(op);
    if (words.empty()) {
      std::cerr << "rpclab-nfs-fsops: --ops: " << nfs::op_name(op) << " has no system call on Linux's NFS client ("
                << nfs::syscall_words(nfs::NfsOp::kCreateExclusive) << ")\n";
      return kExitUsage;
    }
    wire[nfs::op_name(op)] = words;
  }

  nfs::NfsCallRecord record;
  record.header = {{"client_id", w.client_id}, {"dir", dir}, {"ops", nfs::ops_text(w.ops)}, {"count", w.count},
                   {"warmup", w.warmup}, {"calls", "syscalls"}, {"wire", wire}};
  if (!mount_options.empty()) record.header["mount_options"] = mount_options;
  auto t0 = std::chrono::steady_clock::now();
  nfs::record_steps_after_warmup(record, w.client_id, w.warmup, w.count, w.ops, t0,
                    [&dir](nfs::NfsOp op, const std::string& name, nfs::NfsCall&) { return nfs::fs_call(op, dir, name); });
  record.header["wall_ns"] = nfs::ns_since(t0);
  record.write_file(w.record_path);
  return kExitOk;
}
