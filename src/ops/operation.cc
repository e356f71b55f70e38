#include "ops/operation.h"

#include <algorithm>
#include <utility>

#include "ops/allman.h"
#include "ops/payload.h"

namespace rpclab {
namespace {

// What an adapter put in the reply, when it is of the operation's shape.
template <typename T>
const T* reply_as(const OpReply& got) {
  return std::get_if<T>(&got);
}

std::string no_reply(std::string_view op) { return "the " + std::string(op) + " reply holds no answer of its shape"; }

size_t unsized(size_t) { return 0; }
size_t bytes(size_t size) { return size; }
size_t doubles(size_t size) { return size * sizeof(double); }
size_t record(size_t size) { return size + kKiralyFieldBytes; }

std::string nothing_to_check(const CallSetup&, const OpReply&) { return ""; }

CallSetup null_setup(uint32_t, size_t) { return {Empty{}, Empty{}}; }

CallSetup next_setup(uint32_t client_id, size_t) { return {NextRequest{client_id, 0}, Empty{}}; }
void next_seq(OpArgs& args, uint32_t seq) { std::get<NextRequest>(args).seq = seq; }
// A reply that says the call did not run is not a success, whatever the
// transport made of it.
std::string next_check(const CallSetup&, const OpReply& got) {
  const NextReply* reply = reply_as<NextReply>(got);
  if (!reply) return no_reply("NEXT");
  if (reply->status == NextStatus::kStale)
    return "server refused a seq older than its last completed one (at-most-once); not run";
  return "";
}

CallSetup echo_setup(uint32_t client_id, size_t size) { return {make_payload(size, client_id), Empty{}}; }
std::string echo_check(const CallSetup& setup, const OpReply& got) {
  const std::string& sent = std::get<std::string>(setup.args);
  const std::string* reply = reply_as<std::string>(got);
  if (!reply) return no_reply("ECHO");
  if (*reply == sent) return "";
  return "echo reply differs from the request (" + std::to_string(reply->size()) + " of " +
         std::to_string(sent.size()) + " bytes came back)";
}

CallSetup is_prime_setup(uint32_t, size_t) { return {kAllmanPrime, allman_is_prime(kAllmanPrime)}; }
std::string is_prime_check(const CallSetup& setup, const OpReply& got) {
  const bool* prime = reply_as<bool>(got);
  if (!prime) return no_reply("IsPrime");
  return *prime == std::get<bool>(setup.want) ? "" : "IsPrime answered wrong";
}

CallSetup values_setup(uint32_t client_id, size_t size) { return {allman_inputs(size, client_id), Empty{}}; }
std::string average_check(const CallSetup& setup, const OpReply& got) {
  const double* mean = reply_as<double>(got);
  if (!mean) return no_reply("Average");
  return allman_check_average(std::get<std::vector<double>>(setup.args), *mean);
}

CallSetup rand_setup(uint32_t, size_t size) { return {static_cast<int32_t>(size), Empty{}}; }
std::string rand_check(const CallSetup& setup, const OpReply& got) {
  const auto* values = reply_as<std::vector<double>>(got);
  if (!values) return no_reply("GetRandNums");
  return allman_check_rand(static_cast<size_t>(std::get<int32_t>(setup.args)), *values);
}

std::string log_check(const CallSetup& setup, const OpReply& got) {
  const auto* logs = reply_as<std::vector<double>>(got);
  if (!logs) return no_reply("LogTransform");
  return allman_check_log(std::get<std::vector<double>>(setup.args), *logs);
}

CallSetup record_setup(uint32_t client_id, size_t size) {
  auto id = static_cast<int32_t>(client_id);
  return {RecordRequest{id, static_cast<uint32_t>(size)}, kiraly_record(id, size)};
}
std::string record_check(const CallSetup& setup, const OpReply& got) {
  const KiralyRecord* record = reply_as<KiralyRecord>(got);
  if (!record) return no_reply("GetRecord");
  return kiraly_check(std::get<KiralyRecord>(setup.want), *record);
}

}  // namespace

// Columns: id, name, what --size counts, payload bound, setup, seq, check.
const std::vector<OperationRow>& operations() {
  static const std::vector<OperationRow> table = {
      {Operation::kNull, "null", "", unsized, null_setup, nullptr, nothing_to_check},
      {Operation::kNext, "next", "", unsized, next_setup, next_seq, next_check},
      {Operation::kEcho, "echo", "", bytes, echo_setup, nullptr, echo_check},
      {Operation::kIsPrime, "is-prime", "", unsized, is_prime_setup, nullptr, is_prime_check},
      {Operation::kAverage, "average", "doubles", doubles, values_setup, nullptr, average_check},
      {Operation::kGetRandNums, "get-rand-nums", "doubles", doubles, rand_setup, nullptr, rand_check},
      {Operation::kLogTransform, "log-transform", "doubles", doubles, values_setup, nullptr, log_check},
      {Operation::kGetRecord, "get-record", "photo bytes", record, record_setup, nullptr, record_check},
  };
  return table;
}

const OperationRow& operation_row(Operation op) { return operations().at(static_cast<size_t>(op)); }

std::optional<Operation> parse_operation(std::string_view name) {
  for (const OperationRow& row : operations())
    if (row.name == name) return row.op;
  return std::nullopt;
}

std::string_view operation_name(Operation op) { return operation_row(op).name; }

std::string_view size_unit(Operation op) { return operation_row(op).size_unit; }

size_t payload_bytes(Operation op, size_t size) { return operation_row(op).payload_bytes(size); }

std::string operation_names() {
  std::string names;
  for (const OperationRow& row : operations()) names += (names.empty() ? "" : " | ") + std::string(row.name);
  return names;
}

std::string size_help() {
  std::vector<std::pair<std::string, std::string>> units;  // unit, its operations
  for (const OperationRow& row : operations()) {
    if (row.payload_bytes(1) == 0 && row.size_unit.empty()) continue;  // nothing sized
    std::string unit = row.size_unit.empty() ? "bytes" : std::string(row.size_unit);
    auto it = std::find_if(units.begin(), units.end(), [&](const auto& u) { return u.first == unit; });
    if (it == units.end()) it = units.insert(units.end(), {unit, ""});
    it->second += (it->second.empty() ? "" : ", ") + std::string(row.name);
  }
  std::string help;
  for (const auto& [unit, ops] : units) help += (help.empty() ? "" : "; ") + unit + " for " + ops;
  return help;
}

}  // namespace rpclab
