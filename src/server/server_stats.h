// What the harness reads of a server's stats file (--stats-file, written on
// SIGUSR1: docs/results-format.md, "Server ready and stats files"), from
// rpclab-server or an adapter's server that claims server_stats: one type,
// one JSON mapping. The server writes more (mismatches, the table's
// counts) for people; only these are read. docs/adapters.md names each of
// them, and a test holds the page to this list.
#pragma once

#include <nlohmann/json.hpp>

namespace rpclab {

struct ServerStats {
  double generation = 0;    // counts the snapshots: a fresh one from the last
  double next_calls = 0;    // calls served since the process started, per kind
  double echo_calls = 0;
  double allman_calls = 0;
  double record_calls = 0;
  double cpu_user_us = 0;   // the server process's CPU time (getrusage)
  double cpu_sys_us = 0;

  double served() const { return next_calls + echo_calls + allman_calls + record_calls; }
  double cpu_us() const { return cpu_user_us + cpu_sys_us; }
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(ServerStats, generation, next_calls, echo_calls, allman_calls,
                                                record_calls, cpu_user_us, cpu_sys_us)

}  // namespace rpclab
