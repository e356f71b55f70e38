#include "harness/adapters/adapter_rows.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>

#include "common/install_paths.h"
#include "harness/adapters/adapter_build.h"
#include "transport/adapter_scan.h"
#include "transport/transport.h"

namespace rpclab::harness {

std::string adapter_cache_root() {
  const char* cache = std::getenv("XDG_CACHE_HOME");
  if (cache && *cache == '/') return std::string(cache) + "/rpclab/adapters";
  const char* home = std::getenv("HOME");
  if (home && *home == '/') return std::string(home) + "/.cache/rpclab/adapters";
  return "/tmp/rpclab-adapters-" + std::to_string(::getuid());
}

// Installed: libexec/rpclab/adapters (make install puts the programs
// there); in the build tree: <build>/adapters, where `make` builds them.
std::vector<AdapterFolder> adapter_folders() {
  std::vector<AdapterFolder> folders = {{installed_or("adapters", RPCLAB_SOURCE_DIR "/adapters"),
                                         installed_libexec_or("adapters", program_dir() + "/adapters")}};
  if (const char* extra = std::getenv("RPCLAB_ADAPTERS")) {
    std::string rest = extra;
    for (size_t cut; !rest.empty(); rest = cut == std::string::npos ? "" : rest.substr(cut + 1)) {
      cut = rest.find(':');
      // Absolute: its programs run in other folders (a trial's, a namespace's).
      if (std::string folder = rest.substr(0, cut); !folder.empty())
        folders.push_back({std::filesystem::absolute(folder).lexically_normal().string(), adapter_cache_root(), true});
    }
  }
  return folders;
}

namespace {

// The scan, after building again each adapter whose failed build's sources
// have changed (at most once each: a failure again records the new stamp).
AdapterScan scan_rebuilding() {
  AdapterScan scan = scan_adapters(adapter_folders());
  bool rebuilt = false;
  for (const SkippedAdapter& s : scan.skipped) {
    if (manifest_invalid(s) || !sources_changed_since_failure(s.manifest)) continue;
    std::fprintf(stderr, "rpclab: adapter %s: its sources changed since its build failed; building it again (%s/build.log)\n",
                 s.name.c_str(), s.manifest.out.c_str());
    process::CommandLog log;
    if (std::string why = build_adapter(s.manifest, log); !why.empty())
      std::fprintf(stderr, "rpclab: adapter %s: its build failed again: %s\n", s.name.c_str(), why.c_str());
    rebuilt = true;
  }
  return rebuilt ? scan_adapters(adapter_folders()) : scan;
}

}  // namespace

void load_adapter_rows() { add_adapter_rows(scan_rebuilding()); }

AdapterManifest find_adapter(const std::string& name) {
  AdapterScan scan = scan_adapters(adapter_folders());
  std::string names;
  for (AdapterManifest& m : scan.ready) {
    if (m.name == name) return m;
    names += (names.empty() ? "" : ", ") + m.name;
  }
  for (SkippedAdapter& s : scan.skipped) {
    if (s.name == name && manifest_invalid(s)) throw std::invalid_argument("adapter " + name + ": " + s.reason);
    if (s.name == name) return s.manifest;
    names += (names.empty() ? "" : ", ") + s.name;
  }
  std::string where;
  for (const AdapterFolder& f : adapter_folders()) where += (where.empty() ? "" : ", ") + f.path;
  throw std::invalid_argument("no adapter named '" + name + "' (in " + where + ": " +
                              (names.empty() ? "none" : names) + ")");
}

}  // namespace rpclab::harness
