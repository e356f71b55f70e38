#include "nfs/nfs_workload_flags.h"

#include <cstdlib>
#include <iostream>
#include <stdexcept>

namespace rpclab::nfs {

void add_workload_flags(CLI::App& app, WorkloadFlags& f) {
  app.add_option("--client-id", f.client_id, "this client's number: its names are c<id>-s<seq>")
      ->check(in_range<uint32_t>(1, 1000000))->capture_default_str();
  app.add_option("--count", f.count, "steps: seq = 1..count")->check(in_range<uint32_t>(1, 10000000))->capture_default_str();
  app.add_option("--ops", f.ops_list, "the operations of each step, in order: " + known_ops_text())
      ->capture_default_str();
  app.add_option("--warmup", f.warmup, "steps made before the recorded ones and not recorded (seq 1..warmup; the "
                 "recorded steps follow them)")->check(in_range<uint32_t>(0, 10000000))->capture_default_str();
  app.add_option("--record", f.record_path, "where to write the call record (JSON lines)")->required()->check(writable_file());
}

void parse_workload_ops_or_exit(WorkloadFlags& f, const std::string& program) {
  try {
    f.ops = parse_ops(f.ops_list);
  } catch (const std::invalid_argument& e) {
    std::cerr << program << ": --ops: " << e.what() << "\n";
    std::exit(kExitUsage);
  }
}

}  // namespace rpclab::nfs
