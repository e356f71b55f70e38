// Every command rpclab runs against the kernel (ip, tc, nft) or launches
// (servers, clients, hogs, guests), appended to the run's commands.log as a
// shell line a person can replay by hand.
#pragma once

#include <mutex>
#include <string>
#include <vector>

namespace rpclab::process {

class CommandLog {
 public:
  // An empty path keeps the log in memory only (tests, `doctor`).
  explicit CommandLog(std::string path = "");
  void command(const std::vector<std::string>& argv, const std::string& netns = "");
  void comment(const std::string& text);  // "# text", for context between commands
  // A ready-made shell line, for commands with redirections or a trailing
  // '&' (background processes); build the words with shell_line().
  void shell(const std::string& line);
  const std::string& path() const { return path_; }
  std::vector<std::string> lines() const;  // what was logged, in order

 private:
  void append(const std::string& line);
  std::string path_;
  mutable std::mutex mu_;
  std::vector<std::string> lines_;
};

// Quotes argv for a POSIX shell, so the logged line replays exactly.
std::string shell_line(const std::vector<std::string>& argv);

}  // namespace rpclab::process
