// harness/adapters/: rows made from outside (docs/adapters.md). Where
// rpclab finds adapters and puts them in the transport table when it
// starts (this file), how one is built (adapter_build.h), and the
// conformance check `rpclab adapter check` runs (adapter_check.h).
#pragma once

#include <string>
#include <vector>

#include "transport/adapter_manifest.h"
#include "transport/adapter_scan.h"

namespace rpclab::harness {

// The folders whose */manifest.json are adapters: the source tree's
// adapters/ (share/rpclab/adapters once installed), built into
// <this program's folder>/adapters/NAME (libexec/rpclab/adapters/NAME
// once installed); then each folder of the environment's RPCLAB_ADAPTERS
// (colon-separated; tests add their broken fixtures so), built outside
// rpclab's tree, into adapter_cache_root()/NAME-<8 hex digits of its folder>.
std::vector<AdapterFolder> adapter_folders();
// $XDG_CACHE_HOME/rpclab/adapters ($HOME/.cache/rpclab/adapters without it).
std::string adapter_cache_root();

// Reads every manifest and adds the built adapters to the transport table
// (the others, an invalid manifest's included, are listed as skipped with
// the reason). An adapter whose build failed and whose sources changed
// since is built again first, saying so on stderr.
void load_adapter_rows();

// Adapter `name`'s manifest, built or not; throws std::invalid_argument
// naming the adapters there are.
AdapterManifest find_adapter(const std::string& name);

}  // namespace rpclab::harness
