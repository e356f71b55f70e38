// Building an adapter: its manifest's build command, run in its folder,
// its output in {out}/build.log. A failure leaves {out}/build-failed
// saying why and the stamp of its sources, so the next start lists the
// adapter as skipped with that reason, or, once its sources changed,
// builds it again (adapter_manifest.h's scan_adapters, adapter_rows.h).
#pragma once

#include <string>

#include "process/command_log.h"
#include "transport/adapter_manifest.h"

namespace rpclab::harness {

// "" when it built and its programs exist; else why not, in one line.
std::string build_adapter(const AdapterManifest& adapter, process::CommandLog& log);

}  // namespace rpclab::harness
