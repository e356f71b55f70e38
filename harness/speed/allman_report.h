// Views of the Allman and Kiraly workloads' speed records (rpclab speed
// --workload allman | kiraly): the bytes on the wire per operation and transport, as Allman's
// Table 5, and a speed table per operation, each with his 2003 figures
// beside today's where he has one (docs/data/allman2003-*.csv), and a plot
// of time per call against N for each operation.
#pragma once

#include <string>
#include <vector>

#include "harness/record/cell_record.h"

#include "process/command_log.h"

namespace rpclab::harness {

// A speed record of one of Allman's operations (the allman workload).
bool allman_record(const CellRecord& record);
// A speed record of Kiraly's GetRecord (the kiraly workload).
bool kiraly_run(const CellRecord& record);

// Allman's Table 5 today: request and response bytes per call (the RPC's
// bytes, link headers off) at each operation's largest N, x the floor's.
std::string allman_bytes_table(const std::vector<CellRecord>& records, const std::string& data_dir,
                               bool markdown = false);
// Per operation and N: p50, p99, calls/s, CPU per call, bytes, x the floor.
std::string allman_speed_table(const std::vector<CellRecord>& records, const std::string& data_dir,
                               bool markdown = false);
// Kiraly's record per photo size and transport: bytes each way, response
// bytes per photo byte (base64's 4/3), speed, and his 2018 C++ figures
// beside gRPC, XML-RPC and JSON-RPC (docs/data/kiraly2018-record.csv).
std::string kiraly_table(const std::vector<CellRecord>& records, const std::string& data_dir, bool markdown = false);

// allman-<op>-vs-n.png and .svg per operation with a vector; PNG paths.
std::vector<std::string> allman_plots(const std::vector<CellRecord>& records, const std::string& dir,
                                      process::CommandLog& log, std::vector<std::string>* notes);

}  // namespace rpclab::harness
