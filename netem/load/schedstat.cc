#include "netem/load/schedstat.h"

#include <dirent.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>

namespace rpclab::netem {
namespace {

std::string read_small_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The numeric names in a /proc folder: pids, or a process's thread ids.
std::vector<pid_t> numeric_entries(const std::string& dir) {
  std::vector<pid_t> ids;
  DIR* d = ::opendir(dir.c_str());
  if (!d) return ids;
  while (dirent* e = ::readdir(d)) {
    char* end = nullptr;
    long id = std::strtol(e->d_name, &end, 10);
    if (end != e->d_name && *end == '\0' && id > 0) ids.push_back(static_cast<pid_t>(id));
  }
  ::closedir(d);
  return ids;
}

}  // namespace

SchedTimes SchedTimes::operator-(const SchedTimes& e) const {
  auto minus = [](uint64_t a, uint64_t b) { return a > b ? a - b : 0; };
  return {minus(run_ns, e.run_ns), minus(wait_ns, e.wait_ns), minus(timeslices, e.timeslices)};
}

SchedTimes& SchedTimes::operator+=(const SchedTimes& m) {
  run_ns += m.run_ns;
  wait_ns += m.wait_ns;
  timeslices += m.timeslices;
  return *this;
}

std::optional<SchedTimes> parse_task_schedstat(const std::string& text) {
  std::istringstream in(text);
  SchedTimes t;
  if (!(in >> t.run_ns >> t.wait_ns >> t.timeslices)) return std::nullopt;
  return t;
}

std::optional<SchedTimes> parse_cpu_schedstat(const std::string& text, int cpu) {
  std::istringstream lines(text);
  std::string want = "cpu" + std::to_string(cpu);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream fields(line);
    std::string name;
    if (!(fields >> name) || name != want) continue;
    uint64_t v[9];
    for (uint64_t& x : v)
      if (!(fields >> x)) return std::nullopt;
    return SchedTimes{v[6], v[7], v[8]};
  }
  return std::nullopt;
}

std::optional<TaskState> parse_task_stat(const std::string& text) {
  size_t close = text.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream fields(text.substr(close + 1));
  TaskState t;
  if (!(fields >> t.state)) return std::nullopt;
  std::string skip;
  for (int field = 4; field < 39; ++field)  // fields 4..38: ppid .. exit_signal
    if (!(fields >> skip)) return std::nullopt;
  if (!(fields >> t.cpu)) return std::nullopt;
  return t;
}

std::optional<int> parse_procs_running(const std::string& text) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream fields(line);
    std::string key;
    int value = 0;
    if (fields >> key >> value && key == "procs_running") return value;
  }
  return std::nullopt;
}

std::optional<SchedTimes> read_cpu_schedstat(int cpu) { return parse_cpu_schedstat(read_small_file("/proc/schedstat"), cpu); }

std::map<pid_t, SchedTimes> read_thread_schedstats(pid_t pid) {
  std::map<pid_t, SchedTimes> threads;
  std::string dir = "/proc/" + std::to_string(pid) + "/task";
  for (pid_t tid : numeric_entries(dir))
    if (auto t = parse_task_schedstat(read_small_file(dir + "/" + std::to_string(tid) + "/schedstat"))) threads[tid] = *t;
  return threads;
}

int runnable_on_cpu(int cpu) {
  int n = 0;
  for (pid_t pid : numeric_entries("/proc")) {
    std::string tasks = "/proc/" + std::to_string(pid) + "/task";
    for (pid_t tid : numeric_entries(tasks)) {
      auto s = parse_task_stat(read_small_file(tasks + "/" + std::to_string(tid) + "/stat"));
      if (s && s->state == 'R' && s->cpu == cpu) ++n;
    }
  }
  return n;
}

int procs_running() { return parse_procs_running(read_small_file("/proc/stat")).value_or(0); }

}  // namespace rpclab::netem
