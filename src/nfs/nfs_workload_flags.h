// The workload's flags, the same in every NFS workload program
// (rpclab-nfs-client, rpclab-nfs-fsops): --client-id, --count, --ops,
// --warmup, --record.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/cli_support.h"
#include "nfs/nfs_workload.h"

namespace rpclab::nfs {

struct WorkloadFlags {
  uint32_t client_id = 1;
  uint32_t count = 10;
  uint32_t warmup = 0;     // steps made first and not recorded (record_steps_after_warmup)
  std::string ops_list = "mkdir";
  std::string record_path;
  std::vector<NfsOp> ops;  // --ops, parsed by parse_workload_ops_or_exit
};

void add_workload_flags(CLI::App& app, WorkloadFlags& flags);
// After parse_or_exit: the operations of --ops, or a message naming the
// unknown one and exit kExitUsage.
void parse_workload_ops_or_exit(WorkloadFlags& flags, const std::string& program);

}  // namespace rpclab::nfs
