// Runs speed cells. Unlike a dependability cell, a speed cell needs no fresh
// server or ledger, so a session keeps each topology up for the whole run and
// one server per transport and topology while it lasts (the cells of one
// size come in a row for every transport, so that a transport and its floor
// are measured seconds apart, not minutes), and remembers the floor and
// sockperf figures the later records are compared with.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/cell_config.h"
#include "harness/cell_environment.h"
#include "harness/cell_processes.h"
#include "netem/command_log.h"
#include "netem/topology.h"

namespace rpclab::harness {

class SpeedSession {
 public:
  SpeedSession(std::string run_dir, bool latency_pinned) : run_dir_(std::move(run_dir)), latency_pinned_(latency_pinned) {}
  ~SpeedSession();
  nlohmann::json run(const CellConfig& cell, const std::string& cell_dir, CellEnvironment& env, netem::CommandLog& log);

 private:
  struct Measured {
    double p50_us = 0;
    std::vector<double> trial_means_us;
  };
  netem::Topology& topology(netem::TopologyKind kind, netem::CommandLog& log);
  ServerUnderTest& server(const CellConfig& cell, netem::Topology& topo, CellEnvironment& env, netem::CommandLog& log);
  void measure_rpc(const CellConfig& cell, const std::string& cell_dir, CellEnvironment& env, netem::CommandLog& log,
                   nlohmann::json& record);
  void measure_sockperf(const CellConfig& cell, const std::string& cell_dir, CellEnvironment& env,
                        netem::CommandLog& log, nlohmann::json& record);
  void compare(const CellConfig& cell, nlohmann::json& record, const Measured& m);
  std::map<std::string, Measured>::const_iterator floor_measured(const CellConfig& cell, std::string* floor) const;
  static std::string group_key(const CellConfig& cell, const std::string& transport);
  static std::string server_key(const CellConfig& cell);
  struct RunningServer {
    std::unique_ptr<CellFiles> files;
    std::unique_ptr<ServerUnderTest> server;
  };

  std::string run_dir_;
  bool latency_pinned_;
  std::map<netem::TopologyKind, std::unique_ptr<netem::Topology>> topologies_;
  std::map<std::string, RunningServer> servers_;  // by server_key
  std::map<std::string, Measured> measured_;  // by group_key: floors and sockperf
};

}  // namespace rpclab::harness
