#include "nfs/nfs_fs_ops.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

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

namespace {

// open(2) with `flags`, then `then(fd)` (0 or an errno); the close's errno
// when it fails (NFS flushes there) is the call's answer too.
template <typename Then>
FsAnswer with_open_file(const std::string& path, int flags, Then then) {
  int fd = ::open(path.c_str(), flags | O_CLOEXEC, 0644);
  if (fd < 0) return answer_of_errno(errno);
  int err = then(fd);
  if (::close(fd) != 0 && err == 0) err = errno;
  return answer_of_errno(err);
}

}  // namespace

FsAnswer fs_call(NfsOp op, const std::string& dir, const std::string& name) {
  std::string path = dir + "/" + name;
  std::string second = dir + "/" + second_name(op, name);
  int rc = 0;
  switch (op) {
    case NfsOp::kMkdir: rc = ::mkdir(path.c_str(), 0755); break;
    case NfsOp::kRmdir: rc = ::rmdir(path.c_str()); break;
    case NfsOp::kCreateGuarded:
      throw std::invalid_argument("create-guarded has no system call on Linux's NFS client (" +
                                  syscall_words(NfsOp::kCreateExclusive) + "); use create-exclusive");
    case NfsOp::kCreateExclusive:
      return with_open_file(path, O_CREAT | O_EXCL | O_WRONLY, [](int) { return 0; });
    case NfsOp::kRemove: rc = ::unlink(path.c_str()); break;
    case NfsOp::kRename: rc = ::rename(path.c_str(), second.c_str()); break;
    case NfsOp::kLink: rc = ::link(path.c_str(), second.c_str()); break;
    case NfsOp::kWrite: {
      std::string bytes = write_bytes();
      return with_open_file(path, O_WRONLY | O_SYNC, [&bytes](int fd) {
        ssize_t n = ::pwrite(fd, bytes.data(), bytes.size(), static_cast<off_t>(kWriteOffset));
        if (n < 0) return errno;
        return n == static_cast<ssize_t>(bytes.size()) ? 0 : EIO;  // a short FILE_SYNC write: told it failed
      });
    }
    case NfsOp::kGetattr: {  // the mount's root (nfs_workload.h); on the wire only without an attribute cache
      struct stat st {};
      rc = ::stat(dir.c_str(), &st);
      break;
    }
  }
  return answer_of_errno(rc == 0 ? 0 : errno);
}

}  // namespace rpclab::nfs
