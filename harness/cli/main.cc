// rpclab: the harness. Subcommands run the experiments, report on this
// machine, and clean up. A screen of glue over harness/ and netem/.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "common/cli_support.h"
#include "common/install_paths.h"
#include "harness/adapters/adapter_rows.h"
#include "harness/cli/adapter_command.h"
#include "harness/cli/compare_command.h"
#include "harness/cli/experiment_command.h"
#include "harness/cli/experiments.h"
#include "harness/cli/report_command.h"
#include "harness/cli/time_constants_command.h"
#include "harness/report/preset_page.h"
#include "harness/run/experiment_run.h"
#include "harness/placement/guest_cell.h"
#include "netem/topology/capabilities.h"
#include "netem/topology/capabilities_report.h"
#include "netem/topology/topology.h"

namespace {

int doctor() {
  std::printf("%s", rpclab::netem::describe(rpclab::netem::probe_capabilities()).c_str());
  return rpclab::kExitOk;
}

// Removes the namespaces of runs that are gone; those of a run still going
// only with --all, which breaks that run (it once was the only way, and
// `make clean-net` beside a long run ended it).
int clean_net(bool all) {
  namespace netem = rpclab::netem;
  std::vector<std::string> live;
  size_t to_remove = 0;
  for (const std::string& ns : netem::list_our_namespaces()) {
    bool alive = netem::owner_alive(ns);
    if (alive) live.push_back(ns);
    if (all || !alive) ++to_remove;
  }
  if (::geteuid() != 0 && to_remove > 0) {
    std::fprintf(stderr, "rpclab clean-net: removing network namespaces needs root: sudo make clean-net%s\n",
                 all ? " ALL=1" : "");
    return rpclab::kExitSetup;
  }
  rpclab::process::CommandLog log;
  auto removed = all ? netem::remove_all_namespaces(log) : netem::remove_stale_namespaces(log);
  for (const std::string& ns : removed) std::printf("removed %s\n", ns.c_str());
  std::printf("%zu rpclab namespace(s) removed\n", removed.size());
  if (!all)
    for (const std::string& ns : live)
      std::printf("left %s: the run that made it is still going (rpclab clean-net --all, or make clean-net ALL=1, "
                  "removes it and breaks that run)\n", ns.c_str());
  return rpclab::kExitOk;
}

bool has_subcommand(CLI::App& app, const std::string& name) {
  try {
    return app.get_subcommand(name) != nullptr;
  } catch (const CLI::OptionNotFound&) {
    return false;
  }
}

// `--name`, `--name=value` or `-x` is one of rpclab's own (--help, --version).
bool top_level_option(CLI::App& app, const std::string& arg) {
  std::string name = arg.substr(0, arg.find('='));
  return app.get_option_no_throw(name) != nullptr;
}

}  // namespace

int main(int argc, char** argv) {
  // Adapters are rows like any other (docs/adapters.md): in the table
  // before any command's flags or help name the transports.
  try {
    rpclab::harness::load_adapter_rows();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rpclab: %s\n", e.what());
    return rpclab::kExitUsage;
  }
  CLI::App app{"rpclab: how often RPC calls are silently lost or run twice, and what a call costs", "rpclab"};
  app.require_subcommand(1);
  std::vector<std::function<int()>> experiment_commands;
  for (const rpclab::harness::Experiment& e : rpclab::harness::experiments())
    experiment_commands.push_back(rpclab::harness::add_experiment_command(app, e));
  auto report = rpclab::harness::add_report_command(app);
  auto compare = rpclab::harness::add_compare_command(app);
  auto adapter = rpclab::harness::add_adapter_command(app);
  auto time_constants = rpclab::harness::add_time_constants_command(app);
  bool presets_markdown = false;
  std::vector<std::string> presets_of;
  CLI::App* presets = app.add_subcommand(
      "presets", "what each experiment's presets run, from their cells: transports, load, faults, calls, trials "
                 "(docs/presets.md is its --markdown)");
  presets->add_flag("--markdown", presets_markdown, "Markdown tables, as docs/presets.md quotes them");
  std::vector<std::string> experiment_names;
  for (const rpclab::harness::Experiment& e : rpclab::harness::experiments()) experiment_names.push_back(e.name);
  presets->add_option("experiment", presets_of, "only these experiments' presets (default: every one)")
      ->check(CLI::IsMember(experiment_names));
  app.add_subcommand("doctor", "what this machine can do, and what will be skipped and why");
  bool clean_all = false;
  app.add_subcommand("clean-net", "remove the network namespaces of rpclab runs that are gone (make clean-net)")
      ->add_flag("--all", clean_all, "also those of runs still going, which breaks them (make clean-net ALL=1)");
  rpclab::harness::GuestTrial guest;
  CLI::App* cell = app.add_subcommand("cell", "run one trial of a cell from a JSON file (used inside the UML guest)");
  cell->add_option("--spec", guest.spec_path)->required();
  cell->add_option("--result", guest.result_path)->required();
  cell->add_option("--run-id", guest.run_id);
  cell->add_option("--trial", guest.trial);
  cell->add_option("--trials", guest.trials);
  cell->add_option("--cell-index", guest.cell_index);
  cell->group("");  // internal: not listed in --help
  rpclab::add_version_flags(app);
  // CLI11 would only say "A subcommand is required" of a misspelt command
  // or of an option it does not know before any command.
  std::string known, listed;
  std::vector<std::string> names;
  for (const CLI::App* c : app.get_subcommands([](CLI::App* c) { return !c->get_group().empty(); })) {
    known += (known.empty() ? "" : ", ") + c->get_name();
    names.push_back(c->get_name());
    std::string what = c->get_description();
    if (what.size() > 64) what = what.substr(0, what.rfind(' ', 61)) + "...";
    listed += "  " + c->get_name() + std::string(c->get_name().size() < 15 ? 15 - c->get_name().size() : 1, ' ') +
              what + "\n";
  }
  if (argc == 1) {  // a person trying the program: what it can do, not "A subcommand is required"
    std::fprintf(stderr, "rpclab: give a command (rpclab COMMAND --help for its options):\n%s", listed.c_str());
    return rpclab::kExitUsage;
  }
  if (argv[1][0] != '-' && !has_subcommand(app, argv[1])) {
    std::string near = rpclab::nearest_name(argv[1], names);
    std::fprintf(stderr, "rpclab: unknown command '%s'%s (commands: %s)\n", argv[1],
                 near.empty() ? "" : ("; did you mean " + near + "?").c_str(), known.c_str());
    return rpclab::kExitUsage;
  }
  if (argv[1][0] == '-' && !top_level_option(app, argv[1])) {
    std::fprintf(stderr, "rpclab: unknown option '%s': a command comes first, its options after it (commands: %s; "
                 "rpclab COMMAND --help for its options)\n", argv[1], known.c_str());
    return rpclab::kExitUsage;
  }
  rpclab::harness::remember_command_line(argc, argv);
  rpclab::parse_or_exit(app, argc, argv);

  try {
    const auto& rows = rpclab::harness::experiments();
    for (size_t i = 0; i < rows.size(); ++i)
      if (app.got_subcommand(rows[i].name)) return experiment_commands[i]();
    if (app.got_subcommand("report")) return report();
    if (app.got_subcommand("compare")) return compare();
    if (app.got_subcommand("adapter")) return adapter();
    if (app.got_subcommand("time-constants")) return time_constants();
    if (app.got_subcommand("presets")) {
      for (const rpclab::harness::Experiment& e : rpclab::harness::experiments())
        if (presets_of.empty() || std::find(presets_of.begin(), presets_of.end(), e.name) != presets_of.end())
          std::printf("%s\n", rpclab::harness::presets_reference(e, presets_markdown).c_str());
      return rpclab::kExitOk;
    }
    if (app.got_subcommand("doctor")) return doctor();
    if (app.got_subcommand("clean-net")) return clean_net(clean_all);
    if (app.got_subcommand("cell")) {  // inside the guest: a trial of the cell's own experiment
      guest.bin_dir = rpclab::program_dir();
      return rpclab::harness::run_cell_command(guest, [](const rpclab::harness::CellConfig& cell) {
        return &rpclab::harness::find_experiment(cell.experiment);
      });
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rpclab: %s\n", e.what());
    return rpclab::kExitFailed;
  }
  return rpclab::kExitUsage;
}
