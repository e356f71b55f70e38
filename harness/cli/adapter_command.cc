#include "harness/cli/adapter_command.h"

#include <cstdio>
#include <memory>
#include <string>

#include "common/cli_support.h"
#include "common/install_paths.h"
#include "common/signal_watcher.h"
#include "harness/adapters/adapter_build.h"
#include "harness/adapters/adapter_check.h"
#include "harness/adapters/adapter_rows.h"
#include "transport/transport.h"

namespace rpclab::harness {
namespace {

struct Flags {
  std::string action;  // check | build | list
  std::string name;
  std::string dir;
  bool no_build = false;
  bool no_cell = false;
};

int list() {
  for (const TransportRow& row : transports())
    if (row.adapter) std::printf("%-16s built    %s (%s)\n", std::string(row.name).c_str(), row.adapter->summary.c_str(),
                                 row.adapter->file.c_str());
  for (const SkippedAdapter& s : skipped_adapters())
    std::printf("%-16s skipped  %s\n", s.name.c_str(), s.reason.c_str());
  return kExitOk;
}

int run(const Flags& f) {
  if (f.action == "list") return list();
  if (f.name.empty()) {
    std::fprintf(stderr, "rpclab adapter %s: which adapter? (rpclab adapter list names them)\n", f.action.c_str());
    return kExitUsage;
  }
  AdapterManifest adapter;
  try {
    adapter = find_adapter(f.name);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rpclab adapter: %s\n", e.what());
    return kExitUsage;
  }
  if (f.action == "build") {
    process::CommandLog log;
    std::string why = build_adapter(adapter, log);
    if (!why.empty()) {
      std::fprintf(stderr, "rpclab adapter build %s: %s\n", adapter.name.c_str(), why.c_str());
      return kExitFailed;
    }
    std::printf("built %s into %s\n", adapter.name.c_str(), adapter.out.c_str());
    return kExitOk;
  }
  SignalWatcher signals;
  AdapterCheckOptions o;
  o.bin_dir = program_dir();
  o.dir = f.dir;
  o.build = !f.no_build;
  o.cell = !f.no_cell;
  o.stop = &signals.stop_requested();
  return check_adapter(adapter, o, stdout) ? kExitOk : kExitFailed;
}

}  // namespace

std::function<int()> add_adapter_command(CLI::App& app) {
  auto f = std::make_shared<Flags>();
  CLI::App* cmd = app.add_subcommand("adapter", "RPC stacks rpclab did not build, as rows (docs/adapters.md): check "
                                                "one against the contract, build one, list them");
  cmd->add_option("action", f->action,
                  "check: build adapter NAME and test it step by step (ready file, an exact ledger, SIGKILL, "
                  "garbage, a call that times out, a call cut by SIGTERM, SIGTERM, the at-most-once table, a "
                  "dependability trial); build: only build it; list: the adapters found, built or skipped with "
                  "the reason (not built, its build failed, its manifest is not valid)")
      ->required()
      ->check(CLI::IsMember({"check", "build", "list"}));
  cmd->add_option("name", f->name, "the adapter: a folder of adapters/ (or of $RPCLAB_ADAPTERS) with a manifest.json");
  cmd->add_option("--dir", f->dir, "check: keep its files here (default: a new folder under /tmp)");
  cmd->add_flag("--no-build", f->no_build, "check: do not run the build command (its programs must exist)");
  cmd->add_flag("--no-cell", f->no_cell, "check: leave out the dependability trial (it needs root)");
  cmd->footer("Exit status: 0 when every step of the check passes (or the build succeeds); 1 when a step fails; "
              "2 for a bad flag, an unknown adapter, or a manifest with a bad field.");
  return [f] { return run(*f); };
}

}  // namespace rpclab::harness
