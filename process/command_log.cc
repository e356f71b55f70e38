#include "process/command_log.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace rpclab::process {

namespace {

bool is_shell_safe(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              std::strchr("_@%+=:,./-", c) != nullptr;
    if (!ok) return false;
  }
  return true;
}

}  // namespace

std::string shell_line(const std::vector<std::string>& argv) {
  std::string line;
  for (const auto& arg : argv) {
    if (!line.empty()) line += ' ';
    if (is_shell_safe(arg)) {
      line += arg;
      continue;
    }
    line += '\'';
    for (char c : arg) line += (c == '\'') ? std::string("'\\''") : std::string(1, c);
    line += '\'';
  }
  return line;
}

CommandLog::CommandLog(std::string path) : path_(std::move(path)) {}

void CommandLog::command(const std::vector<std::string>& argv, const std::string& netns) {
  if (netns.empty()) {
    append(shell_line(argv));
    return;
  }
  std::vector<std::string> full = {"ip", "netns", "exec", netns};
  full.insert(full.end(), argv.begin(), argv.end());
  append(shell_line(full));
}

void CommandLog::comment(const std::string& text) { append("# " + text); }

void CommandLog::shell(const std::string& line) { append(line); }

std::vector<std::string> CommandLog::lines() const {
  std::lock_guard<std::mutex> lock(mu_);
  return lines_;
}

void CommandLog::append(const std::string& line) {
  std::lock_guard<std::mutex> lock(mu_);
  lines_.push_back(line);
  if (path_.empty()) return;
  // One write(2) per line with O_APPEND: lines from several processes
  // (the harness and a guest writing through hostfs) never interleave.
  int fd = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error("cannot open commands log " + path_ + ": " + std::strerror(errno));
  std::string text = line + "\n";
  ssize_t n = ::write(fd, text.data(), text.size());
  int saved = errno;
  ::close(fd);
  if (n != static_cast<ssize_t>(text.size()))
    throw std::runtime_error("cannot write commands log " + path_ + ": " + std::strerror(saved));
}

}  // namespace rpclab::process
