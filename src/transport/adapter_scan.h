// Finding adapters (docs/adapters.md, "Where it builds"): the folders they
// are read from, where each is built, a stamp of its sources so a failed
// build is tried again once they change, and the scan that reads every
// manifest. A manifest that is not valid skips that adapter with the
// reason; the others still read.
#pragma once

#include <string>
#include <vector>

#include "transport/adapter_manifest.h"

namespace rpclab {

// A folder of adapters, and where each of them is built: `out_root`/<name>,
// or, with `out_per_folder`, `out_root`/<name>-<8 hex digits of its
// folder's path> (one cache for adapters from any number of folders).
struct AdapterFolder {
  std::string path, out_root;
  bool out_per_folder = false;
};

// Every <folder>/*/manifest.json under each of `folders` (one that does
// not exist holds none). A manifest that is not valid, or a second adapter
// of one name, is skipped with the reason (manifest_invalid()).
AdapterScan scan_adapters(const std::vector<AdapterFolder>& folders);

// A skipped adapter whose manifest did not read: nothing can build or run
// it (its `manifest` holds only file and dir).
inline bool manifest_invalid(const SkippedAdapter& s) { return s.manifest.name.empty(); }

// A stamp of the files under `dir` (paths, sizes, modification times;
// hidden entries, and build/ and target/ at its top, left out).
std::string adapter_sources_stamp(const std::string& dir);
// The line the build-failed file (kBuildFailedFile) holds after its
// reason: "sources STAMP", the stamp of the sources the build failed on.
std::string build_failed_text(const std::string& why, const std::string& dir);
// Its build failed, and its sources changed since: build it again.
bool sources_changed_since_failure(const AdapterManifest& m);

}  // namespace rpclab
