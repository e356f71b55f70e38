// The NFS experiment's plan for the flags `args`, as `rpclab nfs` makes it
// (its tests plan without running).
#pragma once

#include <CLI/CLI.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "harness/cli/experiments.h"

namespace rpclab::harness {

inline Plan plan_of(std::vector<std::string> args, bool root = true) {
  const Experiment& e = find_experiment("nfs");
  CLI::App cmd{"nfs"};
  auto flags = e.add_flags(cmd);
  std::reverse(args.begin(), args.end());  // CLI11 takes them last first
  cmd.parse(args);
  PlanContext context;
  context.root = root;
  return flags->plan(context);
}

}  // namespace rpclab::harness
