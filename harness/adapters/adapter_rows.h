// harness/adapters/: rows made from outside (docs/adapters.md). Where
// rpclab finds adapters and puts them in the transport table when it
// starts (this file), how one is built (adapter_build.h), and the
// conformance check `rpclab adapter check` runs (adapter_check.h).
#pragma once

#include <string>
#include <vector>

#include "transport/adapter_manifest.h"

namespace rpclab::harness {

// The folders whose */manifest.json are adapters: the source tree's
// adapters/ (share/rpclab/adapters once installed), then each folder of
// the environment's RPCLAB_ADAPTERS (colon-separated; tests add their
// broken fixtures so).
std::vector<std::string> adapter_folders();
// Where adapter NAME is built: {out} = <this program's folder>/adapters/NAME
// in the build tree, libexec/rpclab/adapters/NAME once installed.
std::string adapter_build_root();

// Reads every manifest and adds the built adapters to the transport table
// (the others are listed as skipped with the reason). Throws
// AdapterManifestError naming the file and the field.
void load_adapter_rows();

// Adapter `name`'s manifest, built or not; throws std::invalid_argument
// naming the adapters there are.
AdapterManifest find_adapter(const std::string& name);

}  // namespace rpclab::harness
