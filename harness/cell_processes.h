// The processes of one cell: a server under test and its clients, each a
// real rpclab-server / rpclab-client process in its host's namespace.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/call_record.h"
#include "core/ledger.h"
#include "harness/cell_config.h"
#include "netem/child_process.h"
#include "netem/topology.h"

namespace rpclab::harness {

// Where a cell keeps its files: logs, call records, the ledger.
struct CellFiles {
  std::string dir;
  std::string path(const std::string& name) const { return dir + "/" + name; }
  std::string client_record(int k) const { return path("client-" + std::to_string(k) + ".rec"); }
  std::string client_log(int k) const { return path("client-" + std::to_string(k) + ".log"); }
};

struct ProcessPlacement {
  std::string bin_dir;                // where rpclab-server and rpclab-client live
  std::vector<int> server_cpus, client_cpus;
  const std::atomic<bool>* stop = nullptr;  // set on SIGINT/SIGTERM of the harness
};

// CPU sets for a cell: with pinning and two or more CPUs, the server (and
// its hogs) get CPU 0 and the clients the rest, as Levy's clients ran on
// unloaded machines.
ProcessPlacement place_processes(const CellConfig& cell, const std::string& bin_dir, int cpus,
                                 const std::atomic<bool>* stop);

class ServerUnderTest {
 public:
  // Starts the server and waits until it serves; throws CellFailure with the
  // server's own words when it cannot start (port in use, bad option).
  ServerUnderTest(const CellConfig& cell, const netem::Host& host, const CellFiles& files,
                  const ProcessPlacement& placement, netem::CommandLog& log);
  ~ServerUnderTest();

  std::string endpoint() const;  // "ADDR:PORT" for clients
  // Counters and CPU time so far (SIGUSR1 -> stats file); nullopt if no answer.
  std::optional<nlohmann::json> stats();
  void check_alive();  // throws CellFailure if the server has died
  // SIGTERM, then the ledger: from the journal, checked against the
  // ledger.bin the server wrote. Throws CellFailure.
  Ledger stop_and_read_ledger();

 private:
  Ledger read_ledger() const;

  const CellFiles& files_;
  std::string address_;
  uint16_t port_ = 0;
  int stats_generation_ = 0;
  std::unique_ptr<netem::ChildProcess> process_;
};

struct ClientResults {
  std::vector<CallRecord> records;  // index k-1 for client k
  bool truncated = false;           // the cell's time limit stopped them early
};

// Starts `cell.clients` clients against `endpoint`, waits for all of them
// (calling `tick` about once a second), and reads their call records.
// Clients still running at `limit` get SIGTERM and write what they have.
ClientResults run_clients(const CellConfig& cell, const std::vector<std::string>& extra_args,
                          const netem::Host& host, const std::string& endpoint, const CellFiles& files,
                          const ProcessPlacement& placement, std::chrono::seconds limit,
                          const std::function<void()>& tick, netem::CommandLog& log);

// The last lines of a log file, for failure reasons.
std::string log_tail(const std::string& path, size_t lines = 5);

}  // namespace rpclab::harness
