// `rpclab adapter check NAME`: an adapter against docs/adapters.md, one
// step at a time, in the order an author fixes them: it builds, its server
// becomes ready, its ledger is exact under a known sequence (repeats and a
// gap included), its journal keeps every answered call through SIGKILL and
// a restart continues it, it survives garbage, a call its stalled server
// never answers is recorded as a timeout (and retried with app), a call
// cut by SIGTERM is still recorded, it stops on SIGTERM, its at-most-once
// table (when claimed) answers repeats and refuses older seqs as
// ServerCore's does, and a dependability trial with 5% duplication gives
// classes that add up.
#pragma once

#include <atomic>
#include <cstdio>
#include <string>

#include "transport/adapter_manifest.h"

namespace rpclab::harness {

struct AdapterCheckOptions {
  std::string bin_dir;                      // this program's folder (rpclab, for the trial)
  std::string dir;                          // where the check keeps its files; "" = a new one under /tmp
  bool build = true;                        // run the build command first
  bool cell = true;                         // the dependability trial (needs root for its namespace)
  const std::atomic<bool>* stop = nullptr;  // set on SIGINT/SIGTERM
};

// Prints "ok    step" or "FAIL  step: what is wrong" to `out` for each step,
// stopping at the first failure. True when every step passed.
bool check_adapter(const AdapterManifest& adapter, const AdapterCheckOptions& options, std::FILE* out);

}  // namespace rpclab::harness
