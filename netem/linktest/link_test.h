// One measured link: build a two-host topology on this kernel, apply a
// FaultSpec with a backend, run rpclab-linkprobe across it, and report the
// configured faults beside what the endpoints saw and what the backend
// counted. With uml-netem the same test runs inside a user-mode-linux guest
// (rpclab-linktest --backend netem, via run_in_guest).
#pragma once

#include <chrono>
#include <string>

#include <nlohmann/json.hpp>

#include "netem/spec/backend_kind.h"
#include "netem/spec/fault_spec.h"
#include "process/command_log.h"

namespace rpclab::netem {

struct LinkTestOptions {
  FaultSpec spec;
  BackendKind backend = BackendKind::kNftables;
  int count = 20000;
  double rate_pps = 10000;
  int size = 64;
  int drain_ms = 500;
  std::string probe_path;     // rpclab-linkprobe
  std::string linktest_path;  // rpclab-linktest, re-run inside the guest for uml-netem
  std::string work_dir;       // probe outputs (and the guest's files); created if missing
  std::chrono::seconds guest_timeout{300};
};

// Throws process::CommandError / SpecError / std::runtime_error when the test could
// not be run; a link that misbehaves is a result, not an exception.
nlohmann::json run_link_test(const LinkTestOptions& options, process::CommandLog& log);

// The argv that re-runs this test inside a guest with --backend netem.
std::vector<std::string> guest_linktest_argv(const LinkTestOptions& options, const std::string& out_path);

}  // namespace rpclab::netem
