#include "harness/adapters/adapter_rows.h"

#include <cstdlib>
#include <filesystem>
#include <stdexcept>

#include "common/install_paths.h"
#include "transport/transport.h"

namespace rpclab::harness {

std::vector<std::string> adapter_folders() {
  std::vector<std::string> folders = {installed_or("adapters", RPCLAB_SOURCE_DIR "/adapters")};
  if (const char* extra = std::getenv("RPCLAB_ADAPTERS")) {
    std::string rest = extra;
    for (size_t cut; !rest.empty(); rest = cut == std::string::npos ? "" : rest.substr(cut + 1)) {
      cut = rest.find(':');
      // Absolute: its programs run in other folders (a trial's, a namespace's).
      if (std::string folder = rest.substr(0, cut); !folder.empty())
        folders.push_back(std::filesystem::absolute(folder).lexically_normal().string());
    }
  }
  return folders;
}

// Installed: libexec/rpclab/adapters (make install puts the programs
// there); in the build tree: <build>/adapters, where `make` builds them.
std::string adapter_build_root() { return installed_libexec_or("adapters", program_dir() + "/adapters"); }

void load_adapter_rows() { add_adapter_rows(scan_adapters(adapter_folders(), adapter_build_root())); }

AdapterManifest find_adapter(const std::string& name) {
  AdapterScan scan = scan_adapters(adapter_folders(), adapter_build_root());
  std::string names;
  for (AdapterManifest& m : scan.ready) {
    if (m.name == name) return m;
    names += (names.empty() ? "" : ", ") + m.name;
  }
  for (SkippedAdapter& s : scan.skipped) {
    if (s.name == name) return s.manifest;
    names += (names.empty() ? "" : ", ") + s.name;
  }
  std::string where;
  for (const std::string& f : adapter_folders()) where += (where.empty() ? "" : ", ") + f;
  throw std::invalid_argument("no adapter named '" + name + "' (in " + where + ": " +
                              (names.empty() ? "none" : names) + ")");
}

}  // namespace rpclab::harness
