// Running the rpclab harness as a real process and reading what it wrote.
#pragma once

#include <unistd.h>

#include <algorithm>
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

// The namespaces the run in `run_dir` made (its commands.log says which)
// that still exist; not those of runs that other tests have going beside
// it on a shared machine.
inline std::vector<std::string> namespaces_left_by(const std::string& run_dir) {
  std::vector<std::string> existing = our_namespaces(), left;
  std::ifstream log(run_dir + "/commands.log");
  const std::string add = "netns add ";
  for (std::string line; std::getline(log, line);) {
    size_t at = line.find(add);
    if (at == std::string::npos || line[0] == '#') continue;
    std::string ns = line.substr(at + add.size());
    if (std::find(existing.begin(), existing.end(), ns) != existing.end()) left.push_back(ns);
  }
  return left;
}

inline bool is_root() { return geteuid() == 0; }

}  // namespace rpclab::test
