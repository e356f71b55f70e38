#include "harness/run/run_folder.h"

#include <time.h>
#include <unistd.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <stdexcept>
#include <vector>

#include "common/atomic_file.h"
#include "transport/transport.h"
#include "harness/record/run_metadata.h"

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

// The files every run writes first: a folder holding one of them holds a run.
const std::vector<std::string> kRunFiles = {"results.jsonl", "trials.jsonl", "metadata.json", "commands.log"};

std::string run_files_in(const std::string& dir) {
  std::string present;
  std::error_code ec;
  for (const std::string& name : kRunFiles)
    if (fs::exists(dir + "/" + name, ec)) present += (present.empty() ? "" : ", ") + name;
  return present;
}

// A few names in `dir`, for the message that refuses it.
std::string some_entries(const std::string& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  std::string shown;
  for (size_t i = 0; i < names.size() && i < 3; ++i) shown += (i ? ", " : "") + names[i];
  return names.size() > 3 ? shown + fmt::format(" and {} more", names.size() - 3) : shown;
}

// A run folder holds one run: a new run never writes among another run's
// files or anyone else's (it would append to, or rename over, them), and
// --resume only reopens a folder that holds a run.
void refuse_mixing(const std::string& dir, FolderUse use) {
  std::error_code ec;
  bool is_dir = fs::is_directory(dir, ec);
  std::string run_files = is_dir ? run_files_in(dir) : "";
  if (use == FolderUse::kResume && run_files.empty())
    throw std::invalid_argument(fmt::format(
        "--resume {}: this folder holds no run to continue (no {}); start a new run with --out NEW_FOLDER", dir,
        fmt::join(kRunFiles, ", ")));
  if (use == FolderUse::kResume || !is_dir) return;
  if (!run_files.empty())
    throw std::invalid_argument(fmt::format(
        "--out {0}: this folder already holds a run ({1}), and a run folder holds one run. Give a new folder with "
        "--out, or continue that run with --resume {0}", dir, run_files));
  std::string others = some_entries(dir);
  if (!others.empty())
    throw std::invalid_argument(fmt::format(
        "--out {}: this folder is not empty (it holds {}); a run writes only into a new or empty folder, so that it "
        "replaces nothing. Give a new folder with --out", dir, others));
}

// A new timestamped folder (with -2, -3... when two runs start in the same
// second), or the folder the user named.
std::string make_dir(const std::string& results_root, const std::string& explicit_dir, FolderUse use) {
  std::error_code ec;
  std::string dir = explicit_dir;
  if (dir.empty()) {
    fs::create_directories(results_root, ec);
    std::string base = results_root + "/" + timestamp();
    dir = base;
    for (int n = 2; !ec && !fs::create_directory(dir, ec); ++n) dir = base + "-" + std::to_string(n);
  } else {
    refuse_mixing(dir, use);
    fs::create_directories(dir, ec);
  }
  if (ec)
    throw SetupError("cannot create the results folder " + dir + ": " + ec.message() +
                     " (choose another with --out or --results-root)");
  return fs::canonical(dir).string();
}

// The start time and 32 random bits: folder names repeat (--out run, the
// same second on two machines), run ids must not.
std::string new_run_id() {
  std::random_device random;
  return fmt::format("{}-{:08x}", timestamp(), random());
}

// A resumed run keeps its id, so every record of the run carries the same
// one. A folder from before metadata.json held run_id used its name.
std::string run_id_for(const std::string& dir, FolderUse use) {
  if (use == FolderUse::kNew) return new_run_id();
  std::optional<RunMetadata> meta = read_run_metadata(dir + "/metadata.json");
  if (meta && meta->run_id) return *meta->run_id;
  return fs::path(dir).filename().string();
}

// results/latest -> the newest run of the results root's own folders,
// replaced atomically. A run folder elsewhere (--out /tmp/x) leaves it be:
// a run written elsewhere leaves no trace in the current directory.
// Only a link is replaced: a file or folder someone put there is left
// alone, and said so.
void point_latest(const std::string& results_root, const std::string& dir) {
  std::error_code ec;
  fs::path root = fs::weakly_canonical(fs::absolute(results_root), ec);
  if (ec || fs::weakly_canonical(fs::absolute(dir), ec).parent_path() != root || ec) return;
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

void check_folder_use(const std::string& dir, FolderUse use) { refuse_mixing(dir, use); }

RunFolder::RunFolder(const std::string& results_root, const std::string& explicit_dir, FolderUse use)
    : dir_(make_dir(results_root, explicit_dir, use)),
      run_id_(run_id_for(dir_, use)),
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
void RunFolder::append_line(const std::string& file, const nlohmann::json& record) {
  std::string line = record.dump();
  std::error_code ec;
  auto size = fs::file_size(file, ec);
  if (!ec && size > 0) {
    std::ifstream in(file, std::ios::binary);
    in.seekg(static_cast<std::streamoff>(size) - 1);
    if (in.get() != '\n') line.insert(0, "\n");
  }
  append_line_durably(file, line, batch_.count() ? Sync::kLater : Sync::kEach);
  if (!batch_.count()) return;
  unsynced_ = true;
  if (std::chrono::steady_clock::now() - synced_at_ >= batch_) sync_now();
}

void RunFolder::sync_in_batches(std::chrono::milliseconds every) {
  batch_ = every;
  synced_at_ = std::chrono::steady_clock::now();
}

void RunFolder::sync_now() {
  sync_file_system(dir_);
  unsynced_ = false;
  synced_at_ = std::chrono::steady_clock::now();
}

RunFolder::~RunFolder() {
  if (!unsynced_) return;
  try {
    sync_now();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rpclab: %s\n", e.what());
  }
}

void RunFolder::write_metadata(RunMetadata metadata) {
  metadata.run_id = run_id_;
  write_file_atomically(path("metadata.json"), nlohmann::json(metadata).dump(2) + "\n");
}

}  // namespace rpclab::harness
