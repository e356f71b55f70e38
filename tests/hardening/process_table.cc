#include "process_table.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <set>
#include <sstream>

namespace rpclab::test {
namespace {

// With read(2): a /proc file of a process that is exiting fails with ESRCH,
// which std::ifstream turns into an exception.
std::string read_file(const std::string& path) {
  std::string out;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return out;
  char buf[4096];
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) out.append(buf, static_cast<size_t>(n));
  ::close(fd);
  return out;
}

// /proc/PID/stat: "pid (comm) state ppid ... starttime(22) ...". The name
// may hold spaces and parentheses, so fields are counted from the last ')'.
bool parse_stat(pid_t pid, ProcessInfo* p, char* state) {
  std::string text = read_file("/proc/" + std::to_string(pid) + "/stat");
  size_t open = text.find('('), close = text.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close < open) return false;
  p->pid = pid;
  p->comm = text.substr(open + 1, close - open - 1);
  std::istringstream fields(text.substr(close + 2));
  std::string field;
  for (int i = 3; fields >> field; ++i) {
    if (i == 3) *state = field[0];
    if (i == 4) p->ppid = std::atoi(field.c_str());
    if (i == 22) {
      p->start_ticks = std::stoull(field);
      return true;
    }
  }
  return false;
}

}  // namespace

std::vector<ProcessInfo> all_processes() {
  std::vector<ProcessInfo> out;
  DIR* d = ::opendir("/proc");
  if (!d) return out;
  while (dirent* e = ::readdir(d)) {
    pid_t pid = std::atoi(e->d_name);
    if (pid <= 0) continue;
    ProcessInfo p;
    char state = 0;
    if (!parse_stat(pid, &p, &state)) continue;  // gone meanwhile
    p.cmdline = read_file("/proc/" + std::to_string(pid) + "/cmdline");
    for (char& c : p.cmdline)
      if (c == '\0') c = ' ';
    out.push_back(std::move(p));
  }
  ::closedir(d);
  return out;
}

bool still_running(const ProcessInfo& p) {
  ProcessInfo now;
  char state = 0;
  return parse_stat(p.pid, &now, &state) && now.start_ticks == p.start_ticks && state != 'Z' && state != 'X';
}

DescendantWatch::DescendantWatch(pid_t root) : root_(root) {
  thread_ = std::thread([this] {
    while (running_.load()) {
      poll_once();
      std::this_thread::sleep_for(std::chrono::milliseconds(3));  // not a wait: how often the table is read while the run goes
    }
  });
}

DescendantWatch::~DescendantWatch() {
  running_ = false;
  thread_.join();
}

// A parent counts only while it is the very process seen (pid and start
// time): a pid reused by a stranger must not adopt the stranger's children.
// An orphan is re-parented to init and is lost to the walk, which is why
// the watch polls often.
void DescendantWatch::poll_once() {
  std::vector<ProcessInfo> procs = all_processes();
  std::lock_guard<std::mutex> lock(mutex_);
  std::set<pid_t> parents = {root_};
  for (const ProcessInfo& p : procs)
    if (seen_.count({p.pid, p.start_ticks})) parents.insert(p.pid);
  for (bool grew = true; grew;) {
    grew = false;
    for (const ProcessInfo& p : procs)
      if (parents.count(p.ppid) && !parents.count(p.pid) && p.pid != root_) {
        parents.insert(p.pid);
        seen_.emplace(std::make_pair(p.pid, p.start_ticks), p);
        grew = true;
      }
  }
}

std::vector<ProcessInfo> DescendantWatch::seen() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<ProcessInfo> out;
  for (const auto& [key, p] : seen_) out.push_back(p);
  return out;
}

}  // namespace rpclab::test
