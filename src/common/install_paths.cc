#include "common/install_paths.h"

#include <sys/stat.h>

#include <filesystem>
#include <stdexcept>

// From the installed bin/ to the installed share/rpclab, relative (made by
// CMake from the install dirs), so that the prefix can move.
#ifndef RPCLAB_BIN_TO_SHARE
#define RPCLAB_BIN_TO_SHARE "../share/rpclab"
#endif
#ifndef RPCLAB_BIN_TO_LIBEXEC
#define RPCLAB_BIN_TO_LIBEXEC "../libexec/rpclab"
#endif

namespace rpclab {

// /proc/self/exe read as a link, not resolved: resolving walks every folder
// on the path, which a user who was let run the program (setpriv, sudo -u)
// may not be allowed to search.
std::string program_dir() {
  std::error_code ec;
  std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) throw std::runtime_error("cannot find this program's folder from /proc/self/exe: " + ec.message() +
                                   " (is /proc mounted?)");
  return exe.parent_path().string();
}

namespace {

// `relative` (from bin/) + "/" + name beside this program, or "" if absent.
std::string beside_program(const char* relative, const std::string& name) {
  std::string path;
  try {
    path = program_dir() + "/" + relative + "/" + name;
  } catch (const std::runtime_error&) {
    return "";
  }
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? path : "";
}

}  // namespace

std::string installed_or(const std::string& name, const std::string& build_tree_path) {
  // The build tree has no share/rpclab beside build/, so a built program
  // always takes the source tree's files.
  std::string installed = beside_program(RPCLAB_BIN_TO_SHARE, name);
  return installed.empty() ? build_tree_path : installed;
}

std::string installed_libexec_or(const std::string& name, const std::string& build_tree_path) {
  if (beside_program(RPCLAB_BIN_TO_SHARE, ".").empty()) return build_tree_path;
  return std::filesystem::path(program_dir() + "/" + RPCLAB_BIN_TO_LIBEXEC + "/" + name).lexically_normal().string();
}

std::string installed_helper(const std::string& name) { return beside_program(RPCLAB_BIN_TO_LIBEXEC, name); }

}  // namespace rpclab
