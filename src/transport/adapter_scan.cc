#include "transport/adapter_scan.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace rpclab {

namespace fs = std::filesystem;

namespace {

uint64_t fnv1a(std::string_view bytes, uint64_t h = 1469598103934665603ull) {
  for (unsigned char c : bytes) h = (h ^ c) * 1099511628211ull;
  return h;
}

std::string hex(uint64_t v, int digits) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(v));
  return std::string(text + 16 - digits);
}

// A build folder's record of its last failure: why, and the sources' stamp
// then ("" from before stamps: taken as unchanged).
struct BuildFailure {
  bool failed = false;
  std::string why, stamp;
};

BuildFailure read_build_failure(const std::string& out) {
  BuildFailure f;
  std::ifstream in(out + "/" + std::string(kBuildFailedFile));
  if (!in) return f;
  f.failed = true;
  std::getline(in, f.why);
  std::string line;
  if (std::getline(in, line) && line.rfind("sources ", 0) == 0) f.stamp = line.substr(8);
  return f;
}

}  // namespace

std::string adapter_sources_stamp(const std::string& dir) {
  std::vector<std::string> entries;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, fs::directory_options::skip_permission_denied, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    std::string name = it->path().filename().string();
    // What a build or a checkout leaves beside the sources, not sources.
    if (name.empty() || name[0] == '.' || (it.depth() == 0 && (name == "build" || name == "target"))) {
      if (it->is_directory(ec)) it.disable_recursion_pending();
      continue;
    }
    if (!it->is_regular_file(ec)) continue;
    auto size = it->file_size(ec);
    auto time = it->last_write_time(ec).time_since_epoch().count();
    entries.push_back(fs::relative(it->path(), dir, ec).string() + '\0' + std::to_string(size) + '\0' +
                      std::to_string(time));
  }
  std::sort(entries.begin(), entries.end());
  uint64_t h = fnv1a("");
  for (const std::string& e : entries) h = fnv1a(e + '\n', h);
  return hex(h, 16);
}

std::string build_failed_text(const std::string& why, const std::string& dir) {
  return why + "\nsources " + adapter_sources_stamp(dir) + "\n";
}

bool sources_changed_since_failure(const AdapterManifest& m) {
  BuildFailure failure = read_build_failure(m.out);
  return failure.failed && !failure.stamp.empty() && failure.stamp != adapter_sources_stamp(m.dir);
}

AdapterScan scan_adapters(const std::vector<std::string>& folders, const std::string& out_root) {
  std::vector<AdapterFolder> all;
  for (const std::string& f : folders) all.push_back({f, out_root});
  return scan_adapters(all);
}

AdapterScan scan_adapters(const std::vector<AdapterFolder>& folders) {
  AdapterScan scan;
  std::set<std::string> names;
  for (const AdapterFolder& folder : folders) {
    std::error_code ec;
    if (!fs::is_directory(folder.path, ec)) continue;
    std::vector<fs::path> dirs;
    for (const auto& entry : fs::directory_iterator(folder.path, ec))
      if (entry.is_directory() && fs::exists(entry.path() / "manifest.json")) dirs.push_back(entry.path());
    std::sort(dirs.begin(), dirs.end());
    for (const fs::path& dir : dirs) {
      std::string file = (dir / "manifest.json").string();
      std::ifstream in(file);
      std::stringstream text;
      text << in.rdbuf();
      std::string folder_name = dir.filename().string();
      std::string out = folder.out_root + "/" + folder_name +
                        (folder.out_per_folder ? "-" + hex(fnv1a(dir.string()), 8) : "");
      AdapterManifest m;
      try {
        m = parse_adapter_manifest(text.str(), file, dir.string(), out);
        if (!names.insert(m.name).second)
          throw AdapterManifestError(file + ": field 'name': a second adapter named " + m.name);
      } catch (const AdapterManifestError& e) {
        // Someone wrote it wrong: that adapter is out, with the file and
        // the field, and every other adapter and command still works.
        AdapterManifest bad;
        bad.file = file;
        bad.dir = dir.string();
        scan.skipped.push_back({folder_name, std::string("its manifest is not valid: ") + e.what(), bad});
        continue;
      }
      std::string missing;
      BuildFailure failure = read_build_failure(m.out);
      for (const std::string& program : m.programs())
        if (::access(program.c_str(), X_OK) != 0 && missing.empty()) missing = program;
      if (missing.empty()) {
        scan.ready.push_back(std::move(m));
        continue;
      }
      SkippedAdapter s{m.name, "", m};
      if (sources_changed_since_failure(m)) {
        s.reason = "its build failed, and its sources changed since (" + m.out + "/build.log): `rpclab adapter build " +
                   m.name + "` builds it again, as rpclab does when it starts";
      } else if (failure.failed) {
        s.reason = "its build failed (" + failure.why + "; " + m.out + "/build.log)";
      } else {
        s.reason = "not built: " + missing + " is missing; `rpclab adapter check " + m.name + "` builds it";
      }
      scan.skipped.push_back(std::move(s));
    }
  }
  return scan;
}

}  // namespace rpclab
