#include "client/call_record.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "common/atomic_file.h"

namespace rpclab {
namespace {

constexpr std::string_view kFormat = "rpclab-call-record";

// Status texts go on one line after a tab; keep them there.
std::string one_line(std::string text) {
  for (char& c : text)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  return text;
}

template <typename T>
T parse_number(std::string_view field, size_t line_no) {
  T value{};
  auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
  if (ec != std::errc() || end != field.data() + field.size())
    throw RecordError("line " + std::to_string(line_no) + ": '" + std::string(field) + "' is not a number");
  return value;
}

// Splits off the text up to `sep` (or the end), advancing `rest`.
std::string_view take_field(std::string_view& rest, char sep) {
  size_t cut = rest.find(sep);
  std::string_view field = rest.substr(0, cut);
  rest = cut == std::string_view::npos ? std::string_view() : rest.substr(cut + 1);
  return field;
}

// The fields a call line and an attempt line share.
std::string line_start(const std::string& first, ErrorKind kind, int64_t latency_ns, int64_t start_ns) {
  return first + '\t' + std::string(error_kind_name(kind)) + '\t' + std::to_string(latency_ns) + '\t' +
         std::to_string(start_ns);
}

ErrorKind kind_at(std::string_view kind, size_t line_no) {
  auto parsed = parse_error_kind(kind);
  if (!parsed) throw RecordError("line " + std::to_string(line_no) + ": unknown outcome '" + std::string(kind) + "'");
  return *parsed;
}

std::string where(size_t line_no) { return "line " + std::to_string(line_no) + ": "; }

int64_t clamp_ns(double ns) { return static_cast<int64_t>(std::clamp(ns, -9.0e18, 9.0e18)); }

}  // namespace

// Version 1 had no start times: each call starts where the one before it
// ended plus an equal share of the time the loop spent between calls (the
// header's wall time beyond the latencies), as the join used to estimate.
void CallRecord::estimate_start_times() {
  if (calls.empty()) return;
  double latencies = 0;
  for (const CallEntry& e : calls) latencies += static_cast<double>(e.latency_ns);
  double wall = header.is_object() && header.value("wall_ns", nlohmann::json()).is_number()
                    ? header["wall_ns"].get<double>() : 0;
  double gap = wall > latencies ? (wall - latencies) / static_cast<double>(calls.size()) : 0;
  double t = 0;
  for (CallEntry& e : calls) {
    e.start_ns = clamp_ns(t);
    t += static_cast<double>(e.latency_ns) + gap;
  }
}

void CallRecord::parse_calls(std::string_view text, int version) {
  size_t line_no = 1;
  uint32_t expected = 0;  // attempt lines still owed by the last call
  while (!text.empty()) {
    std::string_view line = take_field(text, '\n');
    ++line_no;
    if (line.empty()) continue;
    bool attempt_line = line.front() == '+';
    if (attempt_line != (expected > 0))
      throw RecordError(where(line_no) + (attempt_line ? "an attempt line without a call owing one"
                                                       : std::to_string(expected) + " attempt lines missing"));
    if (attempt_line) {
      line.remove_prefix(1);
      AttemptEntry a;
      a.call = calls.size() - 1;
      a.number = parse_number<uint32_t>(take_field(line, '\t'), line_no);
      if (a.number != calls.back().attempts - expected + 1) throw RecordError(where(line_no) + "attempts out of order");
      a.kind = kind_at(take_field(line, '\t'), line_no);
      a.latency_ns = parse_number<int64_t>(take_field(line, '\t'), line_no);
      a.start_ns = parse_number<int64_t>(take_field(line, '\t'), line_no);
      if (!line.empty()) a.detail = intern(std::string(line));
      attempts.push_back(a);
      --expected;
      continue;
    }
    CallEntry e;
    e.seq = parse_number<uint32_t>(take_field(line, '\t'), line_no);
    e.kind = kind_at(take_field(line, '\t'), line_no);
    e.latency_ns = parse_number<int64_t>(take_field(line, '\t'), line_no);
    if (version >= 2) {
      e.start_ns = parse_number<int64_t>(take_field(line, '\t'), line_no);
      e.attempts = parse_number<uint32_t>(take_field(line, '\t'), line_no);
      if (e.attempts == 0) throw RecordError(where(line_no) + "a call of 0 attempts");
      expected = e.attempts > 1 ? e.attempts : 0;
    }
    if (!line.empty()) e.detail = intern(std::string(line));
    calls.push_back(e);
  }
  if (expected) throw RecordError(where(line_no) + std::to_string(expected) + " attempt lines missing at the end");
}

int64_t schedule_ns(uint64_t i, double rate_per_s) {
  return clamp_ns(std::floor(static_cast<double>(i) * 1e9 / rate_per_s));
}

std::optional<double> CallRecord::rate_per_s() const {
  if (!header.is_object()) return std::nullopt;
  auto it = header.find("rate_per_s");
  if (it == header.end() || !it->is_number() || it->get<double>() <= 0) return std::nullopt;
  return it->get<double>();
}

std::vector<std::string> CallRecord::servers() const {
  if (!header.is_object()) return {};
  if (auto list = header.find("servers"); list != header.end() && list->is_array()) {
    std::vector<std::string> out;
    for (const nlohmann::json& one : *list)
      if (one.is_string()) out.push_back(one.get<std::string>());
    return out;
  }
  if (auto one = header.find("server"); one != header.end() && one->is_string()) return {one->get<std::string>()};
  return {};
}

int64_t CallRecord::due_ns(size_t i) const {
  std::optional<double> rate = rate_per_s();
  return rate ? schedule_ns(i, *rate) : 0;
}

uint32_t CallRecord::intern(const std::string& detail) {
  if (detail.empty()) return 0;
  auto [it, added] = index_.emplace(detail, static_cast<uint32_t>(details_.size()));
  if (added) details_.push_back(detail);
  return it->second;
}

// Line 1: the header as one JSON object. Then one line per call:
//   seq <TAB> kind <TAB> latency_ns <TAB> start_ns <TAB> attempts [<TAB> library status text]
// and after a call with attempts > 1, one line per attempt:
//   +number <TAB> kind <TAB> latency_ns <TAB> start_ns [<TAB> library status text]
// Version 1 had only seq, kind, latency_ns and the text.
std::string CallRecord::format() const {
  nlohmann::json head = header;
  head["format"] = kFormat;
  head["version"] = kVersion;
  std::string out = head.dump();
  out.reserve(out.size() + calls.size() * 40);
  out.push_back('\n');
  auto end_line = [&out, this](uint32_t detail) {
    if (detail) out += '\t' + one_line(details_[detail]);
    out.push_back('\n');
  };
  size_t next_attempt = 0;
  for (size_t i = 0; i < calls.size(); ++i) {
    const CallEntry& e = calls[i];
    out += line_start(std::to_string(e.seq), e.kind, e.latency_ns, e.start_ns) + '\t' + std::to_string(e.attempts);
    end_line(e.detail);
    for (; next_attempt < attempts.size() && attempts[next_attempt].call == i; ++next_attempt) {
      const AttemptEntry& a = attempts[next_attempt];
      out += line_start("+" + std::to_string(a.number), a.kind, a.latency_ns, a.start_ns);
      end_line(a.detail);
    }
  }
  return out;
}

CallRecord CallRecord::parse(std::string_view text) {
  CallRecord record;
  std::string_view first = take_field(text, '\n');
  try {
    record.header = nlohmann::json::parse(first);
  } catch (const nlohmann::json::exception& e) {
    throw RecordError(std::string("line 1: header is not JSON: ") + e.what());
  }
  // Compared as JSON values: value("format", "") would throw a json
  // type_error, not a RecordError, on a header whose format is a number.
  const nlohmann::json& head = record.header;
  auto field = [&head](const char* key) {
    return head.is_object() ? head.value(key, nlohmann::json()) : nlohmann::json();
  };
  if (field("format") != nlohmann::json(kFormat)) throw RecordError("line 1: not an rpclab call record");
  int version = field("version") == nlohmann::json(1) ? 1 : field("version") == nlohmann::json(kVersion) ? kVersion : 0;
  if (!version) throw RecordError("line 1: unsupported call record version (this build reads versions 1 and 2)");
  record.parse_calls(text, version);
  if (version == 1) record.estimate_start_times();
  return record;
}

void CallRecord::write_file(const std::string& path, Sync sync) const {
  write_file_atomically(path, format(), sync);
}

CallRecord CallRecord::read_file(const std::string& path) {
  try {
    return parse(read_whole_file(path));
  } catch (const RecordError& e) {
    throw RecordError(path + ": " + e.what());
  }
}

}  // namespace rpclab
