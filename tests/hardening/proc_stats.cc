#include "proc_stats.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace rpclab::test {

namespace {

// The fields of a /proc/.../stat file from the third (the state) on: the
// command name before them may hold spaces and parentheses.
std::string fields_after_command(const std::filesystem::path& stat) {
  std::ifstream in(stat);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t close = text.rfind(')');
  return close == std::string::npos || close + 2 > text.size() ? "" : text.substr(close + 2);
}

}  // namespace

double cpu_seconds(pid_t pid) {
  std::string text = fields_after_command("/proc/" + std::to_string(pid) + "/stat");
  if (text.empty()) return 0;
  std::istringstream fields(text);
  std::string field;
  unsigned long long utime = 0, stime = 0;
  for (int i = 3; fields >> field; ++i) {  // field 3 is the state
    if (i == 14) utime = std::stoull(field);
    if (i == 15) {
      stime = std::stoull(field);
      break;
    }
  }
  return static_cast<double>(utime + stime) / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

uint64_t status_kib(pid_t pid, const std::string& field) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);)
    if (line.compare(0, field.size() + 1, field + ":") == 0) return std::stoull(line.substr(field.size() + 1));
  return 0;
}

bool every_thread_asleep(pid_t pid) {
  std::error_code ec;
  for (const auto& task : std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task", ec)) {
    if (fields_after_command(task.path() / "stat").rfind("R", 0) == 0) return false;
  }
  return !ec;
}

uint64_t raise_open_files(uint64_t want) {
  rlimit lim{};
  ::getrlimit(RLIMIT_NOFILE, &lim);
  if (lim.rlim_cur < want) {
    lim.rlim_cur = std::min<rlim_t>(want, lim.rlim_max);
    ::setrlimit(RLIMIT_NOFILE, &lim);
    ::getrlimit(RLIMIT_NOFILE, &lim);
  }
  return lim.rlim_cur;
}

}  // namespace rpclab::test
