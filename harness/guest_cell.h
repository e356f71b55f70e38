// The uml-netem backend: a whole cell (namespaces, netem, server, clients)
// runs inside a user-mode-linux guest, because this kernel has no sch_netem
// and the guest's has. The cell travels in as JSON and its record comes back
// as a file through hostfs.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "harness/cell_config.h"
#include "harness/cell_environment.h"
#include "netem/command_log.h"
#include "netem/fault_backend.h"

namespace rpclab::harness {

nlohmann::json run_cell_in_guest(const CellConfig& cell, const std::string& cell_dir, const netem::Choice& choice,
                                 CellEnvironment& env, netem::CommandLog& log);

// Inside the guest: `rpclab cell --spec FILE --result FILE` runs here.
int run_cell_command(const std::string& spec_path, const std::string& result_path, const std::string& run_id,
                     const std::string& bin_dir);

}  // namespace rpclab::harness
