#include "support/nobody_programs.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "support/process.h"

namespace rpclab::test {
namespace {

namespace fs = std::filesystem;

// Runs what follows as user nobody, with no supplementary groups.
const std::vector<std::string> kAsNobody = {"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"};

// Copies the programs and opens the folders; returns why it could not.
std::string copy_programs(const std::string& root, const std::vector<std::string>& programs, mode_t bin_mode) {
  std::error_code ec;
  fs::create_directory(root + "/bin", ec);
  for (const std::string& p : programs) {
    if (ec) break;
    fs::copy_file(bin(p), root + "/bin/" + p, fs::copy_options::overwrite_existing, ec);
  }
  // rpclab-client and rpclab-server load their transport's module from
  // beside them (src/transport/transport_module.h).
  if (!ec && fs::is_directory(bin("transports")))
    fs::copy(bin("transports"), root + "/bin/transports", fs::copy_options::recursive, ec);
  if (!ec) fs::create_directory(root + "/work", ec);
  if (ec) return "cannot copy the build's programs into " + root + ": " + ec.message();
  if (::chmod(root.c_str(), 0755) != 0 || ::chmod((root + "/work").c_str(), 0777) != 0 ||
      ::chmod((root + "/bin").c_str(), bin_mode) != 0)
    return "cannot open " + root + " to user nobody: " + std::strerror(errno);
  struct statvfs fs_info {};
  if (::statvfs(root.c_str(), &fs_info) == 0 && (fs_info.f_flag & ST_NOEXEC))
    return "/tmp is mounted noexec, so user nobody cannot run the programs copied there";
  return "";
}

}  // namespace

NobodyPrograms::NobodyPrograms(const std::vector<std::string>& programs, mode_t bin_mode) {
  if (::geteuid() != 0) {
    why_not_ = "needs root to drop to user nobody with setpriv";
    return;
  }
  // /tmp, not $TMPDIR: TMPDIR may itself be under a 0700 home.
  std::string pattern = "/tmp/rpclab-nobody.XXXXXX";
  if (!::mkdtemp(pattern.data())) {
    why_not_ = "cannot create a folder under /tmp for user nobody: " + std::string(std::strerror(errno));
    return;
  }
  root_ = pattern;
  why_not_ = copy_programs(root_, programs, bin_mode);
}

NobodyPrograms::~NobodyPrograms() {
  if (root_.empty()) return;
  std::error_code ignored;
  fs::remove_all(root_, ignored);
}

std::vector<std::string> NobodyPrograms::argv(std::vector<std::string> args) const {
  std::vector<std::string> full = kAsNobody;
  full.push_back(bin_dir() + "/" + args.at(0));
  full.insert(full.end(), args.begin() + 1, args.end());
  return full;
}

}  // namespace rpclab::test
