#include "process/process_cpu.h"

#include <unistd.h>

#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

namespace rpclab::process {

namespace {

// /proc/<pid>/stat from its third field (the state) on; nothing when the
// process is gone. The command name before it, in parentheses, may hold
// spaces and parentheses: the fields are counted from after its last ')'.
std::optional<std::string> stat_fields(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t close = text.rfind(')');
  if (close == std::string::npos || close + 2 >= text.size()) return std::nullopt;
  return text.substr(close + 2);
}

}  // namespace

bool process_ended(pid_t pid) {
  std::optional<std::string> fields = stat_fields(pid);
  return !fields || fields->front() == 'Z' || fields->front() == 'X';
}

std::vector<pid_t> child_pids(pid_t pid) {
  std::vector<pid_t> children;
  std::ifstream in("/proc/" + std::to_string(pid) + "/task/" + std::to_string(pid) + "/children");
  for (pid_t child; in >> child;) children.push_back(child);
  return children;
}

std::optional<ProcessCpu> process_cpu(pid_t pid) {
  std::optional<std::string> text = stat_fields(pid);
  if (!text) return std::nullopt;
  std::istringstream fields(*text);
  std::string field;
  unsigned long long utime = 0, stime = 0;
  int i = 3;  // field 3 is the state
  for (; i <= 15 && fields >> field; ++i) {
    if (i == 14) utime = std::stoull(field);
    if (i == 15) stime = std::stoull(field);
  }
  if (i <= 15) return std::nullopt;
  double us_per_tick = 1e6 / static_cast<double>(::sysconf(_SC_CLK_TCK));
  return ProcessCpu{static_cast<double>(utime) * us_per_tick, static_cast<double>(stime) * us_per_tick};
}

}  // namespace rpclab::process
