// The NFS workload's operations done with system calls on a mounted file
// system (the Linux kernel client's path): each operation row's system
// call (syscall_words: mkdir(2), rmdir(2), open(O_CREAT|O_EXCL), unlink(2),
// rename(2), link(2), pwrite(2) on a file opened O_SYNC) on a name in a
// directory, stat(2) of the directory itself for GETATTR (a kernel mount
// answers it from its attribute cache unless mounted with noac:
// harness/nfs/nfs_client.h), and what
// each was told in the call record's words (nfs_call_record.h), so the
// classes (harness/nfs/nfs_classes.h) judge it as they judge
// rpclab-nfs-client's calls.
//
// errno in those words: EEXIST -> NFS3ERR_EXIST, ENOENT -> NFS3ERR_NOENT
// and the others RFC 1813 has (ENOTDIR, EISDIR, EACCES, EPERM, ENOSPC,
// EROFS, ENAMETOOLONG, ENOTEMPTY, EDQUOT, ESTALE, EINVAL, EXDEV, EFBIG,
// EMLINK, EOPNOTSUPP) -> their NFS3ERR_ name, as if the reply had said so;
// EIO and ETIMEDOUT (a soft mount giving up, a major timeout) -> no reply
// (`rpc` "error" and "timeout"); any other errno -> `nfs` "errno:<NAME>".
#pragma once

#include <optional>
#include <string>

#include "nfs/nfs_workload.h"

namespace rpclab::nfs {

struct FsAnswer {
  std::string rpc = "ok";          // "ok" | "timeout" | "error"
  std::string detail;              // strerror's text when not ok
  std::optional<std::string> nfs;  // "NFS3_OK", "NFS3ERR_EXIST", ...; none when no reply is implied
};

// What a system call that returned errno `err` (0: success) was told.
FsAnswer answer_of_errno(int err);

// `op` on `dir`/`name`; a file made by create-exclusive is closed at once.
// create-guarded has no system call (Linux's NFSv3 client sends
// open(O_CREAT|O_EXCL) as CREATE EXCLUSIVE): std::invalid_argument.
FsAnswer fs_call(NfsOp op, const std::string& dir, const std::string& name);

}  // namespace rpclab::nfs
