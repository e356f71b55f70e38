// Running the rpclab harness as a real process and reading what it wrote.
#pragma once

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/process.h"

namespace rpclab::test {

inline std::vector<nlohmann::json> read_jsonl(const std::string& path) {
  std::vector<nlohmann::json> records;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) records.push_back(nlohmann::json::parse(line));  // throws on a torn line
  return records;
}

inline std::vector<std::string> our_namespaces() {
  ProcessResult r = run_program({"ip", "netns", "list"});
  std::vector<std::string> ours;
  size_t pos = 0;
  while ((pos = r.out.find("rpclab-", pos)) != std::string::npos) {
    size_t end = r.out.find_first_of(" \n", pos);
    ours.push_back(r.out.substr(pos, end - pos));
    pos = end;
  }
  return ours;
}

// The namespaces not in `before` whose owner (the pid in rpclab-<pid>-...)
// has ended: what a finished run left behind, and not the live namespaces
// of runs that other tests have going beside it on a shared machine.
inline std::vector<std::string> left_behind(const std::vector<std::string>& before) {
  std::vector<std::string> left;
  for (const std::string& ns : our_namespaces()) {
    if (std::find(before.begin(), before.end(), ns) != before.end()) continue;
    pid_t owner = std::atoi(ns.c_str() + std::strlen("rpclab-"));
    if (owner <= 0 || ::kill(owner, 0) != 0) left.push_back(ns);
  }
  return left;
}

inline bool is_root() { return geteuid() == 0; }

}  // namespace rpclab::test
