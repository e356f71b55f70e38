#include "harness/placement/kept_clients.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <utility>

#include "common/cli_support.h"
#include "harness/run/cell_failure.h"
#include "transport/transport.h"

namespace rpclab::harness {

using namespace std::chrono_literals;

namespace {

constexpr std::string_view kTrialDone = "rpclab-trial-done ";

// A FIFO the harness holds open for reading and writing: the client's own
// open of either end then never blocks, and the harness's end never sees
// an end of file while it holds it (a client's death shows in its wait
// status instead).
int make_fifo(const std::string& path) {
  if (::mkfifo(path.c_str(), 0600) != 0)
    throw CellFailure(fmt::format("cannot make the FIFO {}: {}", path, std::strerror(errno)));
  int fd = ::open(path.c_str(), O_RDWR | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    std::string why = std::strerror(errno);
    ::unlink(path.c_str());
    throw CellFailure(fmt::format("cannot open the FIFO {}: {}", path, why));
  }
  return fd;
}

}  // namespace

struct KeptClients::Client {
  int k = 0;
  std::string trials_path, done_path, log;
  int trials_fd = -1, done_fd = -1;
  std::string pending;          // what came on the done FIFO since the last whole line
  std::optional<int> exit;      // this trial's answer
  std::unique_ptr<process::ChildProcess> process;

  ~Client() {
    if (trials_fd >= 0) ::close(trials_fd);
    if (done_fd >= 0) ::close(done_fd);
    for (const std::string& p : {trials_path, done_path})
      if (!p.empty()) ::unlink(p.c_str());
  }

  // Reads what the client said; true once its trial's answer is in.
  bool read_answer() {
    char buf[256];
    for (ssize_t got; (got = ::read(done_fd, buf, sizeof buf)) > 0;) pending.append(buf, static_cast<size_t>(got));
    for (size_t end; !exit && (end = pending.find('\n')) != std::string::npos;) {
      std::string line = pending.substr(0, end);
      pending.erase(0, end + 1);
      if (line.rfind(kTrialDone, 0) == 0) exit = std::atoi(line.c_str() + kTrialDone.size());
    }
    return exit.has_value();
  }
};

bool clients_can_be_kept(const CellConfig& cell) {
  const TransportRow* row = find_transport(cell.transport);
  return row && !row->adapter && cell.retry.policy != RetryPolicy::kApp;
}

KeptClients::KeptClients(const CellConfig& cell, const std::vector<std::string>& extra_args, const netem::Host& host,
                         const std::string& endpoint, const std::string& dir, const ProcessPlacement& placement,
                         process::CommandLog& log)
    : placement_(placement) {
  CellFiles files{dir};
  for (int k = 1; k <= cell.clients; ++k) {
    auto c = std::make_unique<Client>();
    c->k = k;
    c->log = files.client_log(k);
    c->trials_path = files.path(fmt::format("client-{}.trials", k));
    c->trials_fd = make_fifo(c->trials_path);
    c->done_path = files.path(fmt::format("client-{}.done", k));
    c->done_fd = make_fifo(c->done_path);
    // Each trial's line names its record: the command's own --record goes.
    std::vector<std::string> argv = client_argv(cell, k, endpoint, files, placement.bin_dir);
    auto record = std::find(argv.begin(), argv.end(), "--record");
    if (record != argv.end()) argv.erase(record, record + 2);
    argv.insert(argv.end(), extra_args.begin(), extra_args.end());
    argv.push_back("--trials-from-stdin");
    process::SpawnOptions spawn;
    spawn.netns = host.netns;
    spawn.cpus = placement.client_cpus;
    spawn.stdin_path = c->trials_path;
    spawn.stdout_path = c->done_path;
    spawn.stderr_path = c->log;
    c->process = std::make_unique<process::ChildProcess>(argv, spawn, log);
    clients_.push_back(std::move(c));
  }
}

KeptClients::~KeptClients() {
  // The end of each client's input ends it; a client still in a trial (a
  // failure elsewhere) is killed with its process object.
  for (auto& c : clients_) ::close(std::exchange(c->trials_fd, -1));
  auto until = std::chrono::steady_clock::now() + 1s;
  for (auto& c : clients_) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
    if (!spent_ && left.count() > 0) c->process->wait_for(left);
  }
}

ClientResults KeptClients::run_trial(const CellFiles& files, const std::string& gate_dir, std::chrono::seconds limit,
                                     const std::function<void()>& tick, const WaitPoll& poll) {
  if (spent_) throw CellFailure("the cell's kept clients are gone");
  spent_ = true;  // until this trial has come back whole
  for (auto& c : clients_) {
    c->exit.reset();
    nlohmann::json line = {{"record", files.client_record(c->k)}};
    if (!gate_dir.empty()) line["start_gate"] = gate_dir;
    std::string text = line.dump() + "\n";
    // Far below a FIFO's buffer, and nothing else writes it: one write.
    if (::write(c->trials_fd, text.data(), text.size()) != static_cast<ssize_t>(text.size()))
      throw CellFailure(fmt::format("cannot tell client {} its trial: {}", c->k, std::strerror(errno)));
  }
  ClientResults results;
  auto started = std::chrono::steady_clock::now();
  auto next_tick = started + 1s;
  std::vector<pollfd> fds;
  for (;;) {
    bool all_done = true;
    for (auto& c : clients_) {
      if (c->read_answer()) continue;
      all_done = false;
      if (auto status = c->process->poll())
        throw CellFailure(fmt::format("client {} failed ({}): {}", c->k, process::describe_wait_status(*status),
                                      log_tail(c->log)));
    }
    if (all_done) break;
    if (placement_.stop && placement_.stop->load()) throw Interrupted();
    int wake = poll ? poll() : -1;
    auto now = std::chrono::steady_clock::now();
    if (now - started > limit && !results.truncated) {
      results.truncated = true;  // each writes what it has, answers, and leaves
      for (auto& c : clients_) c->process->signal(SIGTERM);
    }
    if (now >= next_tick) {
      tick();
      next_tick = now + 1s;
    }
    // An answer, or what the poll hook waits for (a client ready at the
    // start gate), wakes this at once; the 5 ms bound is for a client's
    // death, as in run_clients.
    fds.clear();
    for (auto& c : clients_)
      if (!c->exit) fds.push_back({c->done_fd, POLLIN, 0});
    if (wake >= 0) fds.push_back({wake, POLLIN, 0});
    ::poll(fds.data(), fds.size(), 5);
  }
  for (auto& c : clients_) {
    if (*c->exit != kExitOk && *c->exit != kExitFailed)
      throw CellFailure(fmt::format("client {} could not run its trial (exit {}): {}", c->k, *c->exit,
                                    log_tail(c->log)));
    try {
      results.records.push_back(read_client_record(files, c->k));
    } catch (const CellFailure& e) {
      throw CellFailure(fmt::format("{} (client {}: {})", e.what(), c->k, log_tail(c->log)));
    }
  }
  spent_ = results.truncated;
  return results;
}

}  // namespace rpclab::harness
