#include "nfs/nfs_fs_ops.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace rpclab::nfs {

namespace {

struct ErrnoRow {
  int err;
  const char* status;
};
// RFC 1813's nfsstat3 for the errno the Linux client makes of it
// (fs/nfs/nfs3proc.c's nfs_stat_to_errno, read backwards).
constexpr ErrnoRow kStatuses[] = {
    {EPERM, "NFS3ERR_PERM"},         {ENOENT, "NFS3ERR_NOENT"},     {ENXIO, "NFS3ERR_NXIO"},
    {EACCES, "NFS3ERR_ACCES"},       {EEXIST, "NFS3ERR_EXIST"},     {EXDEV, "NFS3ERR_XDEV"},
    {ENODEV, "NFS3ERR_NODEV"},       {ENOTDIR, "NFS3ERR_NOTDIR"},   {EISDIR, "NFS3ERR_ISDIR"},
    {EINVAL, "NFS3ERR_INVAL"},       {EFBIG, "NFS3ERR_FBIG"},       {ENOSPC, "NFS3ERR_NOSPC"},
    {EROFS, "NFS3ERR_ROFS"},         {EMLINK, "NFS3ERR_MLINK"},     {ENAMETOOLONG, "NFS3ERR_NAMETOOLONG"},
    {ENOTEMPTY, "NFS3ERR_NOTEMPTY"}, {EDQUOT, "NFS3ERR_DQUOT"},     {ESTALE, "NFS3ERR_STALE"},
    {EOPNOTSUPP, "NFS3ERR_NOTSUPP"},
};

}  // namespace

FsAnswer answer_of_errno(int err) {
  FsAnswer a;
  if (err == 0) {
    a.nfs = "NFS3_OK";
    return a;
  }
  if (err == EIO || err == ETIMEDOUT) {
    a.rpc = err == EIO ? "error" : "timeout";
    a.detail = std::strerror(err);
    return a;
  }
  for (const ErrnoRow& r : kStatuses)
    if (r.err == err) {
      a.nfs = r.status;
      return a;
    }
  const char* name = strerrorname_np(err);
  a.nfs = std::string("errno:") + (name ? name : std::to_string(err));
  a.detail = std::strerror(err);
  return a;
}

FsAnswer fs_call(NfsOp op, const std::string& dir, const std::string& name) {
  std::string path = dir + "/" + name;
  int rc = 0;
  switch (op) {
    case NfsOp::kMkdir: rc = ::mkdir(path.c_str(), 0755); break;
    case NfsOp::kRmdir: rc = ::rmdir(path.c_str()); break;
    case NfsOp::kCreateGuarded: {
      int fd = ::open(path.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
      if (fd >= 0) {
        int saved = 0;
        if (::close(fd) != 0) saved = errno;  // a close that fails is the call's answer too (NFS flushes there)
        return answer_of_errno(saved);
      }
      rc = -1;
      break;
    }
    case NfsOp::kRemove: rc = ::unlink(path.c_str()); break;
    case NfsOp::kGetattr: {  // the mount's root (nfs_workload.h); on the wire only without an attribute cache
      struct stat st {};
      rc = ::stat(dir.c_str(), &st);
      break;
    }
  }
  return answer_of_errno(rc == 0 ? 0 : errno);
}

}  // namespace rpclab::nfs
