#include "common/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace rpclab {
namespace {

[[noreturn]] void fail(const std::string& what, const std::string& path) {
  throw std::runtime_error(what + " " + path + ": " + std::strerror(errno));
}

void write_all(int fd, std::string_view content, const std::string& path) {
  while (!content.empty()) {
    ssize_t n = ::write(fd, content.data(), content.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail("cannot write", path);
    content.remove_prefix(static_cast<size_t>(n));
  }
}

// How a path is written (the rule in atomic_file.h).
enum class Way { kStdout, kReplace, kInPlace, kRefuse };

struct Target {
  Way way = Way::kRefuse;
  std::string file;     // kReplace: the regular file to replace (a link's target), else the path
  std::string problem;  // kRefuse: why, naming the path
  mode_t mode = 0;      // kReplace of an existing file: its permissions, kept; 0 = a new file
};

Target refuse(const std::string& problem) { return {Way::kRefuse, "", problem, 0}; }

std::string what_is(mode_t mode) {
  switch (mode & S_IFMT) {
    case S_IFDIR: return "is a folder; give a file name in it";
    case S_IFBLK: return "is a block device; rpclab writes only to files, FIFOs and character devices";
    case S_IFSOCK: return "is a socket; rpclab writes only to files, FIFOs and character devices";
    default: return "is not a file, FIFO or character device";
  }
}

Target target_of(const std::string& path) {
  if (path == "-") return {Way::kStdout, path, "", 0};
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return {Way::kReplace, path, "", 0};
    return refuse("cannot write " + path + ": " + std::strerror(errno));
  }
  bool link = S_ISLNK(st.st_mode);
  if (link && ::stat(path.c_str(), &st) != 0)
    return refuse(path + " is a symbolic link that points to nothing (" + std::strerror(errno) +
                  "); remove it or give another path");
  if (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode)) return {Way::kInPlace, path, "", 0};
  if (!S_ISREG(st.st_mode)) return refuse(path + " " + what_is(st.st_mode));
  if (!link) return {Way::kReplace, path, "", st.st_mode & 07777};
  char real[PATH_MAX];
  if (!::realpath(path.c_str(), real)) return refuse("cannot follow the link " + path + ": " + std::strerror(errno));
  return {Way::kReplace, real, "", st.st_mode & 07777};
}

std::string folder_of(const std::string& file) {
  size_t slash = file.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : file.substr(0, slash);
}

// A FIFO or a device: opened as it is (no O_CREAT, no O_TRUNC). Opening a
// FIFO waits for its reader, as a shell's `>` does.
void write_in_place(const std::string& path, std::string_view content) {
  int fd = ::open(path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) fail("cannot open", path);
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !(S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode))) {
    ::close(fd);
    throw std::runtime_error("cannot write " + path + ": it changed while being opened; try again");
  }
  try {
    write_all(fd, content, path);
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
}

// A temporary file in the file's own folder (so rename stays on one file
// system), made with O_EXCL so it never takes over anything already there.
void replace(const Target& t, std::string_view content, Sync sync) {
  static std::atomic<unsigned> serial{0};
  std::string tmp = t.file + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(serial++);
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) fail("cannot create", tmp);
  try {
    if (t.mode && ::fchmod(fd, t.mode) != 0) fail("cannot set the permissions of", tmp);
    write_all(fd, content, tmp);
  } catch (...) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
  if (sync == Sync::kEach) ::fsync(fd);
  ::close(fd);
  if (::rename(tmp.c_str(), t.file.c_str()) != 0) {
    int saved = errno;
    ::unlink(tmp.c_str());
    errno = saved;
    fail("cannot rename into", t.file);
  }
}

}  // namespace

void write_file_atomically(const std::string& path, std::string_view content, Sync sync) {
  Target t = target_of(path);
  switch (t.way) {
    case Way::kStdout: return write_all(STDOUT_FILENO, content, "standard output");
    case Way::kInPlace: return write_in_place(path, content);
    case Way::kReplace: return replace(t, content, sync);
    case Way::kRefuse: throw std::runtime_error(t.problem);
  }
}

std::string output_path_problem(const std::string& path) {
  Target t = target_of(path);
  if (t.way == Way::kRefuse) return t.problem;
  if (t.way == Way::kInPlace && ::access(path.c_str(), W_OK) != 0)
    return "cannot write " + path + ": " + std::strerror(errno);
  if (t.way != Way::kReplace) return "";
  std::string dir = folder_of(t.file);
  if (::access(dir.c_str(), W_OK) == 0) return "";
  return "cannot write " + path + ": folder " + dir + ": " + std::strerror(errno) +
         " (create it, or choose a writable place)";
}

bool absent_or_regular_file(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return errno == ENOENT;
  return S_ISREG(st.st_mode);
}

void append_line_durably(const std::string& path, std::string_view line, Sync sync) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) fail("cannot open", path);
  std::string whole(line);
  whole.push_back('\n');
  try {
    write_all(fd, whole, path);
  } catch (...) {
    ::close(fd);
    throw;
  }
  if (sync == Sync::kEach) ::fsync(fd);
  ::close(fd);
}

void sync_file_system(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail("cannot open", path);
  int rc = ::syncfs(fd);
  int saved = errno;
  ::close(fd);
  errno = saved;
  if (rc != 0) fail("cannot sync the file system of", path);
}

std::string read_whole_file(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail("cannot open", path);
  std::string out;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      ::close(fd);
      fail("cannot read", path);
    }
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return out;
}

}  // namespace rpclab
