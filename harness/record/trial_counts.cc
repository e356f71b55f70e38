#include "harness/record/trial_counts.h"

#include <fmt/format.h>

namespace rpclab::harness {
namespace {

nlohmann::json optional_json(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); }

std::optional<double> optional_from(const nlohmann::json& j, const char* key) {
  const nlohmann::json& v = j.at(key);
  if (v.is_null()) return std::nullopt;
  return v.get<double>();
}

ClientTrialCounts client_from_json(const nlohmann::json& j) {
  ClientTrialCounts c;
  c.client_id = j.at("client_id").get<uint32_t>();
  c.calls = j.at("calls").get<uint64_t>();
  c.silent = j.at("silent").get<uint64_t>();
  c.duplicate_calls = j.at("duplicate_calls").get<uint64_t>();
  c.extra_executions = j.at("extra_executions").get<uint64_t>();
  c.first_silent_s = optional_from(j, "first_silent_s");
  c.first_duplicate_s = optional_from(j, "first_duplicate_s");
  if (c.silent > c.calls || c.duplicate_calls > c.calls)
    throw TrialCountsError(fmt::format("client {}: {} silent errors and {} duplicate calls in {} calls", c.client_id,
                                       c.silent, c.duplicate_calls, c.calls));
  return c;
}

}  // namespace

uint64_t TrialCounts::total(ClientCount field) const {
  uint64_t sum = 0;
  for (const ClientTrialCounts& c : clients) sum += c.*field;
  return sum;
}

nlohmann::json TrialCounts::to_json() const {
  nlohmann::json list = nlohmann::json::array();
  for (const ClientTrialCounts& c : clients)
    list.push_back({{"client_id", c.client_id},
                    {"calls", c.calls},
                    {"silent", c.silent},
                    {"duplicate_calls", c.duplicate_calls},
                    {"extra_executions", c.extra_executions},
                    {"first_silent_s", optional_json(c.first_silent_s)},
                    {"first_duplicate_s", optional_json(c.first_duplicate_s)}});
  return {{"trial", trial}, {"clients", list}};
}

TrialCounts TrialCounts::from_json(const nlohmann::json& j) {
  try {
    TrialCounts t;
    t.trial = j.at("trial").get<uint32_t>();
    if (!j.at("clients").is_array()) throw TrialCountsError("\"clients\" is not a list");
    for (const nlohmann::json& c : j.at("clients")) t.clients.push_back(client_from_json(c));
    return t;
  } catch (const nlohmann::json::exception& e) {
    throw TrialCountsError(std::string("not a trial's counts: ") + e.what());
  } catch (const TrialCountsError& e) {
    throw TrialCountsError(std::string("not a trial's counts: ") + e.what());
  }
}

}  // namespace rpclab::harness
