#include "harness/paths/proxy_process.h"

#include <signal.h>
#include <sys/stat.h>

#include <fmt/format.h>

#include <chrono>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <thread>

#include "common/atomic_file.h"
#include "harness/run/cell_failure.h"
#include "process/command_runner.h"

namespace rpclab::harness {
namespace {

using namespace std::chrono_literals;

constexpr auto kListenTimeout = 10s;
constexpr auto kStopGrace = 5s;

}  // namespace

bool listening_in_namespace_of(pid_t pid, int port, bool udp) {
  std::ifstream in(fmt::format("/proc/{}/net/{}", pid, udp ? "udp" : "tcp"));
  std::string line;
  std::getline(in, line);  // the header
  std::string want = fmt::format(":{:04X}", port);
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string slot, local, remote, state;
    fields >> slot >> local >> remote >> state;
    if (local.size() >= want.size() && local.compare(local.size() - want.size(), want.size(), want) == 0 &&
        (udp || state == "0A"))
      return true;
  }
  return false;
}

ListeningProcess::ListeningProcess(std::string what, const std::vector<std::string>& argv,
                                   const process::SpawnOptions& spawn, int port, bool udp, std::string log_path,
                                   process::CommandLog& log)
    : what_(std::move(what)), log_path_(std::move(log_path)) {
  try {
    process_ = std::make_unique<process::ChildProcess>(argv, spawn, log);
  } catch (const std::exception& e) {
    throw CellFailure(fmt::format("{} did not start: {}", what_, e.what()));
  }
  auto deadline = std::chrono::steady_clock::now() + kListenTimeout;
  while (!listening_in_namespace_of(process_->pid(), port, udp)) {
    if (auto status = process_->poll())
      throw CellFailure(fmt::format("{} did not start ({}): {}", what_, process::describe_wait_status(*status),
                                    log_tail(log_path_)));
    if (std::chrono::steady_clock::now() > deadline)
      throw CellFailure(fmt::format("{} did not listen on port {} within {} s: {}", what_, port,
                                    kListenTimeout.count(), log_tail(log_path_)));
    std::this_thread::sleep_for(5ms);
  }
}

ListeningProcess::~ListeningProcess() = default;

void ListeningProcess::check_alive() {
  if (stopped_) return;
  if (auto status = process_->poll())
    throw CellFailure(fmt::format("{} died mid-run ({}): {}", what_, process::describe_wait_status(*status),
                                  log_tail(log_path_)));
}

void ListeningProcess::stop() {
  if (stopped_) return;
  stopped_ = true;
  process_->stop(kStopGrace);
}

std::string proxy_version(const ProxyRow& proxy, process::CommandLog& log) {
  static std::map<std::string_view, std::string> known;
  if (auto it = known.find(proxy.name); it != known.end()) return it->second;
  process::CommandResult r = process::run({std::string(proxy.program), std::string(proxy.version_flag)}, log);
  std::string text = r.out + r.err;
  std::smatch m;
  static const std::regex number(R"((\d+\.\d+\.\d+))");
  std::string version = std::regex_search(text, m, number) ? std::string(proxy.title) + " " + m[1].str()
                                                           : std::string(proxy.title);
  return known[proxy.name] = version;
}

ProxyProcess::ProxyProcess(const PathRow& path, Carriage carriage, const netem::Host& middle, ProxyConfigInput in,
                           const CellFiles& files, process::CommandLog& log)
    : address_(middle.address), config_name_(std::string(path.proxy->config_name)),
      version_(proxy_version(*path.proxy, log)) {
  const ProxyRow& proxy = *path.proxy;
  in.dir = files.dir;
  in.listen_addr = middle.address;
  in.listen_port = kListenPort;
  log_path_ = in.log_path = files.path("proxy.log");
  ::mkdir(files.path("nginx-temp").c_str(), 0755);  // nginx's temporary files (its template names them)
  std::string config;
  try {
    config = render_proxy_config(path, carriage, in);
  } catch (const std::exception& e) {
    throw CellFailure(e.what());
  }
  write_file_atomically(files.path(config_name_), config);
  process::SpawnOptions spawn;
  spawn.netns = middle.netns;
  spawn.env = proxy.env(files.dir);
  // HAProxy logs its requests on standard output; the others write their
  // own log and keep standard error for start-up words.
  spawn.stdout_path = proxy.log_on_stdout ? log_path_ : files.path("proxy.out");
  spawn.stderr_path = files.path("proxy.err");
  process_ = std::make_unique<ListeningProcess>(version_, proxy.argv(files.path(config_name_), files.dir), spawn,
                                                kListenPort, carriage == Carriage::kDatagram, files.path("proxy.err"),
                                                log);
}

std::string ProxyProcess::endpoint() const { return fmt::format("{}:{}", address_, kListenPort); }

}  // namespace rpclab::harness
