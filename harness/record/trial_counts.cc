#include "harness/record/trial_counts.h"

#include <fmt/format.h>

#include "harness/record/json_fields.h"

namespace rpclab::harness {
namespace {

using fields::ObjectReader;
using fields::ObjectWriter;

template <typename Io, typename C>
void describe_client(Io& io, C& c) {
  io("client_id", c.client_id);
  io("calls", c.calls);
  io("silent", c.silent);
  io("duplicate_calls", c.duplicate_calls);
  io("extra_executions", c.extra_executions);
  io("first_silent_s", fields::or_null(c.first_silent_s));
  io("first_duplicate_s", fields::or_null(c.first_duplicate_s));
}

// Every field is there, none of them null but the times.
ClientTrialCounts client_from_json(const nlohmann::json& j) {
  ClientTrialCounts c;
  ObjectReader in(j, ObjectReader::kStrict);
  describe_client(in, c);
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

void to_json(nlohmann::json& j, const TrialCounts& t) {
  nlohmann::json list = nlohmann::json::array();
  for (const ClientTrialCounts& c : t.clients) {
    nlohmann::json client;
    ObjectWriter out(client);
    describe_client(out, c);
    list.push_back(client);
  }
  j = {{"trial", t.trial}, {"clients", list}};
}

void from_json(const nlohmann::json& j, TrialCounts& t) {
  try {
    t = TrialCounts{};
    t.trial = fields::value_as<uint32_t>(j.at("trial"));
    if (!j.at("clients").is_array()) throw TrialCountsError("\"clients\" is not a list");
    for (const nlohmann::json& c : j.at("clients")) t.clients.push_back(client_from_json(c));
  } catch (const nlohmann::json::exception& e) {
    throw TrialCountsError(std::string("not a trial's counts: ") + e.what());
  } catch (const TrialCountsError& e) {
    throw TrialCountsError(std::string("not a trial's counts: ") + e.what());
  }
}

}  // namespace rpclab::harness
