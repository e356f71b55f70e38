#include "harness/remote/remote_clients.h"

#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "harness/run/cell_failure.h"
#include "harness/remote/remote_watchdog.h"

namespace rpclab::harness {
namespace {

using namespace std::chrono_literals;
using process::shell_line;

std::string q(const std::string& word) { return shell_line({word}); }

// The clients of one trial in their folder there; the destructor (any
// exception on the way) kills them, cancels the switch, removes the folder.
class RemoteClients {
 public:
  RemoteClients(RemoteSession& host, const std::string& dir_name, int deadline_s)
      : host_(host.host()), dir_(host.run_dir() + "/" + dir_name),
        switch_(host.host(), host.watchdog(), host.run_id(), dir_) {
    // A pid is killed only while its command line names this folder.
    switch_.arm(fmt::format("for f in {0}/client-*.pid; do p=$(cat \"$f\" 2>/dev/null) && grep -qa {0}/ "
                            "/proc/$p/cmdline 2>/dev/null && kill -KILL $p; done\nrm -f {0}/lease\n", q(dir_)),
                deadline_s);
  }
  ~RemoteClients() {
    if (done_) return;
    try {
      host_.run(fmt::format("sh {0}/cleanup.sh", q(dir_)));
      switch_.cancel();
      host_.run("rm -rf " + q(dir_));
    } catch (const std::exception& e) {
      host_.log().comment(std::string("remote cleanup failed; the watchdog and the next run will do it: ") + e.what());
    }
  }

  CellFiles files() const { return {dir_}; }

  // Each client in the background there; a subshell waits on it and
  // keeps its exit status in client-K.exit.
  void start(const std::vector<std::vector<std::string>>& argvs) {
    std::string script = "cd " + q(dir_) + " && ";
    for (size_t i = 0; i < argvs.size(); ++i) {
      CellFiles f = files();
      int k = static_cast<int>(i) + 1;
      script += fmt::format("( {0} >{1} 2>&1 </dev/null & echo $! > {2}/client-{3}.pid; wait $!; "
                            "echo $? > {2}/client-{3}.exit ) >/dev/null 2>&1 </dev/null & ",
                            shell_line(argvs[i]), q(f.client_log(k)), q(dir_), k);
    }
    host_.run_checked(script + "true");
  }
  int finished() {
    return std::stoi(host_.run_checked(fmt::format("ls {0}/client-*.exit 2>/dev/null | wc -l", q(dir_))).out);
  }
  void signal_all() { host_.run(fmt::format("for f in {0}/client-*.pid; do kill -TERM $(cat \"$f\"); done; true", q(dir_))); }

  // Their exit statuses, their records and logs fetched into `local`; the folder goes.
  std::vector<int> collect(int clients, const CellFiles& local) {
    std::string out = host_.run_checked(fmt::format(
        "for k in $(seq 1 {1}); do echo \"$(cat {0}/client-$k.exit)\"; done; "
        "for f in {0}/client-*.rec {0}/client-*.log; do [ -f \"$f\" ] && echo \"$f\"; done; true",
        q(dir_), clients)).out;
    std::istringstream lines(out);
    std::vector<int> exits;
    std::vector<std::string> present;
    for (std::string line; std::getline(lines, line);) {
      if (static_cast<int>(exits.size()) < clients)
        exits.push_back(line.empty() ? -1 : std::stoi(line));
      else if (!line.empty())
        present.push_back(line);
    }
    if (!present.empty()) host_.copy_from(present, local.dir);
    switch_.cancel();
    host_.run_checked("rm -rf " + q(dir_));
    done_ = true;
    return exits;
  }

 private:
  process::RemoteHost& host_;
  std::string dir_;
  DeadManSwitch switch_;
  bool done_ = false;
};

}  // namespace

ClientResults run_remote_clients(const CellConfig& cell, RemoteSession& host, const std::string& dir_name,
                                 const std::string& endpoint, const CellFiles& local, int deadline_s,
                                 std::chrono::seconds limit, const std::function<void()>& tick,
                                 const std::atomic<bool>* stop) {
  RemoteClients clients(host, dir_name, deadline_s);
  std::vector<std::vector<std::string>> argvs;
  for (int k = 1; k <= cell.clients; ++k) argvs.push_back(client_argv(cell, k, endpoint, clients.files(), host.bin_dir()));
  clients.start(argvs);
  ClientResults results;
  auto started = std::chrono::steady_clock::now();
  auto next_tick = started + 1s;
  while (clients.finished() < cell.clients) {
    if (stop && stop->load()) throw Interrupted();
    auto now = std::chrono::steady_clock::now();
    if (now - started > limit && !results.truncated) {
      results.truncated = true;  // clients write what they have on SIGTERM
      clients.signal_all();
    }
    if (now >= next_tick) {
      tick();
      next_tick = now + 1s;
    }
    std::this_thread::sleep_for(20ms);  // between ssh round trips
  }
  std::vector<int> exits = clients.collect(cell.clients, local);
  for (int k = 1; k <= cell.clients; ++k) {
    if (exits[k - 1] != 0)
      throw CellFailure(fmt::format("client {} on {} failed (exit {}): {}", k, host.host().target().text(),
                                    exits[k - 1], log_tail(local.client_log(k))));
    results.records.push_back(read_client_record(local, k));
  }
  return results;
}

}  // namespace rpclab::harness
