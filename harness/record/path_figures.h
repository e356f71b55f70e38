// What a trial on a path measured (`path`, docs/results-format.md): the
// path's row and its proxy, where each call ran (per replica), how many
// calls ran on two or more replicas, and what the proxy's own log says of
// its upstream attempts. A cell sums its trials'. How the path is built:
// harness/paths/; how a cause across replicas is decided: path_causes.h.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/record/maybe_null.h"

namespace rpclab::harness {

struct PathFigures {
  std::string path;                  // the row's name: "haproxy-retry"
  std::string proxy;                 // the program and its version ("HAProxy 2.6.12"), "" without one
  std::string proxy_setting;         // the settings that change retries, in the proxy's own words
  int replicas = 1;
  std::vector<uint64_t> executions;  // NEXT executions per replica (index k-1)
  uint64_t calls_on_several = 0;     // (client, seq) that ran on two or more replicas
  uint64_t extra_elsewhere = 0;      // executions on another replica than the call's first
  // From the proxy's log: the requests (or, for a stream proxy, the
  // sessions) it logged, and those it sent upstream more than once; null
  // where its log has no such lines.
  MaybeNull<uint64_t> proxy_requests, proxy_retried;
  std::optional<std::string> store;  // the shared at-most-once table's store ("redis 7.0.15 at ADDR")
  std::optional<std::string> config; // the proxy's configuration, in the trial's folder
  PathFigures& operator+=(const PathFigures& o);  // a cell's: counts added, names kept
};
void to_json(nlohmann::json& j, const PathFigures& p);
void from_json(const nlohmann::json& j, PathFigures& p);

}  // namespace rpclab::harness
