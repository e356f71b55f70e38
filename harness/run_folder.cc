#include "harness/run_folder.h"

#include <time.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "core/atomic_file.h"
#include "core/transport.h"

namespace rpclab::harness {
namespace {

namespace fs = std::filesystem;

std::string timestamp() {
  time_t now = time(nullptr);
  tm local;
  localtime_r(&now, &local);
  char buf[32];
  strftime(buf, sizeof buf, "%Y%m%d-%H%M%S", &local);
  return buf;
}

// A new timestamped folder (with -2, -3... when two runs start in the same
// second), or the folder the user named.
std::string make_dir(const std::string& results_root, const std::string& explicit_dir) {
  std::error_code ec;
  std::string dir = explicit_dir;
  if (dir.empty()) {
    fs::create_directories(results_root, ec);
    std::string base = results_root + "/" + timestamp();
    dir = base;
    for (int n = 2; !ec && !fs::create_directory(dir, ec); ++n) dir = base + "-" + std::to_string(n);
  } else {
    fs::create_directories(dir, ec);
  }
  if (ec)
    throw SetupError("cannot create the results folder " + dir + ": " + ec.message() +
                     " (choose another with --out or --results-root)");
  return fs::canonical(dir).string();
}

// results/latest -> the newest run, replaced atomically. Only a link is
// replaced: a file or folder someone put there is left alone, and said so.
void point_latest(const std::string& results_root, const std::string& dir) {
  fs::path root = fs::absolute(results_root);
  std::error_code ec;
  fs::create_directories(root, ec);
  fs::path latest = root / "latest";
  fs::file_status now = fs::symlink_status(latest, ec);
  if (fs::exists(now) && !fs::is_symlink(now)) {
    std::fprintf(stderr, "rpclab: %s is not a symbolic link, so it was left alone (not pointed at this run)\n",
                 latest.c_str());
    return;
  }
  fs::path tmp = root / (".latest.tmp." + std::to_string(::getpid()));
  fs::create_directory_symlink(dir, tmp, ec);
  if (ec) return;
  fs::rename(tmp, latest, ec);
  if (ec) fs::remove(tmp, ec);  // the link just made
}

std::string slug(const std::string& label) {
  std::string s;
  for (char c : label) s.push_back(std::isalnum(static_cast<unsigned char>(c)) || c == '-' ? c : '_');
  return s.substr(0, 80);
}

}  // namespace

RunFolder::RunFolder(const std::string& results_root, const std::string& explicit_dir)
    : dir_(make_dir(results_root, explicit_dir)),
      run_id_(fs::path(dir_).filename().string()),
      log_(dir_ + "/commands.log") {
  point_latest(results_root, dir_);
}

std::string RunFolder::cell_dir(size_t index, const std::string& label) {
  char prefix[16];
  snprintf(prefix, sizeof prefix, "%03zu-", index);
  std::string dir = dir_ + "/cells/" + prefix + slug(label);
  fs::create_directories(dir);
  return dir;
}

// A run killed mid-write can leave a torn last line without its newline;
// the next record starts on a line of its own so only the torn one is lost.
void RunFolder::append(const nlohmann::json& record) {
  std::string line = record.dump();
  std::error_code ec;
  auto size = fs::file_size(results_path(), ec);
  if (!ec && size > 0) {
    std::ifstream in(results_path(), std::ios::binary);
    in.seekg(static_cast<std::streamoff>(size) - 1);
    if (in.get() != '\n') line.insert(0, "\n");
  }
  append_line_durably(results_path(), line);
}

void RunFolder::write_metadata(const nlohmann::json& metadata) {
  write_file_atomically(path("metadata.json"), metadata.dump(2) + "\n");
}

}  // namespace rpclab::harness
