// The adapters' rows in the transport table (docs/adapters.md), for the
// presets: which are there to run, and which are not and why. Defined
// with the table, in src/transport_table.cc.
#pragma once

#include <string>
#include <vector>

namespace rpclab {

// The adapters' rows in the table (built when rpclab started), in the
// table's order; `stream_only`: only those whose carrier is a stream.
// A preset's tables of every RPC system add them.
std::vector<std::string> adapter_row_names(bool stream_only = false);
// One line for each adapter not in the table, with the reason (not built,
// its build failed): "adapter NAME skipped: REASON".
std::vector<std::string> adapters_left_out();

}  // namespace rpclab
