#include "server/journal_lines.h"

#include <arpa/inet.h>

#include <algorithm>

#include <limits>
#include <map>
#include <utility>

#include <nlohmann/json.hpp>

#include "ops/next_reply.h"
#include "server/journal_error.h"
#include "server/journal_lines_keys.h"

namespace rpclab {
namespace {

using journal::Record;
using journal::RecordKind;

std::string at_line(size_t n) { return "line " + std::to_string(n) + ": "; }

template <typename T>
T number(const nlohmann::json& v, const char* what, size_t line) {
  if (!v.is_number_integer() || v.get<int64_t>() < 0 ||
      static_cast<uint64_t>(v.get<int64_t>()) > static_cast<uint64_t>(std::numeric_limits<T>::max()))
    throw JournalError(at_line(line) + what + " is not a number in range");
  return static_cast<T>(v.get<int64_t>());
}

// "a.b.c.d:port" into the record; anything else is damage.
void read_peer(const nlohmann::json& v, Record& r, size_t line) {
  std::string text = v.is_string() ? v.get<std::string>() : "";
  size_t colon = text.rfind(':');
  in_addr addr{};
  if (colon == std::string::npos || ::inet_pton(AF_INET, text.substr(0, colon).c_str(), &addr) != 1)
    throw JournalError(at_line(line) + "peer '" + text + "' is not a.b.c.d:port");
  r.peer_ipv4 = ntohl(addr.s_addr);
  r.peer_port = number<uint16_t>(nlohmann::json::parse(text.substr(colon + 1), nullptr, false), "peer's port", line);
  r.known |= journal::kKnowsPeer;
}

const std::map<std::string, RecordKind, std::less<>>& kinds() {
  static const std::map<std::string, RecordKind, std::less<>> k = {
      {"exec", RecordKind::kExecuted}, {"table", RecordKind::kAnsweredFromTable}, {"stale", RecordKind::kRefusedStale}};
  return k;
}

// A call line's optional fields (docs/adapters.md, "The lines journal"):
// what the server could tell of the request, each into its record.
struct OptionalField {
  std::string_view key;
  void (*read)(const nlohmann::json& value, Record& r, size_t line);
};
const OptionalField kOptional[] = {
    {"request_id", [](const nlohmann::json& v, Record& r, size_t line) {
       r.request_id = number<uint32_t>(v, "request_id", line);
       r.known |= journal::kKnowsRequestId;
     }},
    {"attempt", [](const nlohmann::json& v, Record& r, size_t line) {
       r.attempt = number<uint16_t>(v, "attempt", line);
       r.known |= journal::kKnowsAttempt;
     }},
    {"connection", [](const nlohmann::json& v, Record& r, size_t line) {
       r.connection = number<uint32_t>(v, "connection", line);
       r.known |= journal::kKnowsConnection;
     }},
    {"peer", [](const nlohmann::json& v, Record& r, size_t line) { read_peer(v, r, line); }},
    {"realtime_ns", [](const nlohmann::json& v, Record& r, size_t line) {
       r.realtime_ns = number<int64_t>(v, "realtime_ns", line);
     }},
};

// The first line's and a start line's keys.
constexpr char kFormatKey[] = "format", kVersionKey[] = "version", kTransportKey[] = "transport",
               kStartKey[] = "start";

Record read_call(const nlohmann::json& j, RecordKind kind, const nlohmann::json& five, uint32_t start, size_t line) {
  if (!five.is_array() || five.size() != 5)
    throw JournalError(at_line(line) + "expected [client_id, seq, status, expected_seq, times_executed]");
  Record r{};
  r.kind = static_cast<uint8_t>(kind);
  r.client_id = number<uint32_t>(five[0], "client_id", line);
  r.seq = number<uint32_t>(five[1], "seq", line);
  r.status = number<uint32_t>(five[2], "status", line);
  if (r.status > kLastNextStatus) throw JournalError(at_line(line) + "unknown status " + std::to_string(r.status));
  r.expected_seq = number<uint32_t>(five[3], "expected_seq", line);
  r.times_executed = number<uint32_t>(five[4], "times_executed", line);
  r.start = static_cast<uint16_t>(start);
  for (const auto& [key, value] : j.items()) {
    if (kinds().count(key)) continue;
    auto field = std::find_if(std::begin(kOptional), std::end(kOptional),
                              [&key = key](const OptionalField& f) { return f.key == key; });
    if (field == std::end(kOptional)) throw JournalError(at_line(line) + "unknown key '" + key + "'");
    field->read(value, r, line);
  }
  return r;
}

class Reader {
 public:
  JournalLines out;

  void header(std::string_view line) {
    nlohmann::json h = nlohmann::json::parse(line, nullptr, false);
    if (!h.is_object() || h.value(kFormatKey, nlohmann::json()) != nlohmann::json(kJournalLinesFormat))
      throw JournalError(at_line(1) + "not an rpclab lines journal (no {\"format\":\"rpclab-journal-lines\"})");
    if (h.value(kVersionKey, nlohmann::json()) != nlohmann::json(kJournalLinesVersion))
      throw JournalError(at_line(1) + "unsupported version (this rpclab reads version 1)");
    if (!h.value(kTransportKey, nlohmann::json()).is_string()) throw JournalError(at_line(1) + "no transport");
    out.transport = h[kTransportKey].get<std::string>();
  }

  // `ends_life`: a start line follows, so the line may be a torn write.
  void line(std::string_view text, size_t n, bool ends_life) {
    nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
      if (!ends_life) throw JournalError(at_line(n) + "not a JSON object, and not the last line of a server's life");
      torn(n);
      return;
    }
    if (j.contains(kStartKey)) {
      uint32_t start = number<uint32_t>(j[kStartKey], "start", n);
      if (start != out.starts + 1)
        throw JournalError(at_line(n) + "server start " + std::to_string(start) + " after start " +
                           std::to_string(out.starts));
      out.starts = start;
      torn_this_life_ = false;
      return;
    }
    if (out.starts == 0) throw JournalError(at_line(n) + "a call before any server start line");
    const nlohmann::json* five = nullptr;
    RecordKind kind{};
    for (const auto& [key, k] : kinds())
      if (j.contains(key)) {
        if (five) throw JournalError(at_line(n) + "more than one of exec, table, stale");
        five = &j[key];
        kind = k;
      }
    if (!five) throw JournalError(at_line(n) + "neither a start line nor exec, table or stale");
    Record r = read_call(j, kind, *five, out.starts, n);
    r.index = static_cast<uint32_t>(out.records.size());
    r.seal = journal::seal_of(r);
    out.records.push_back(r);
  }

  void torn(size_t n) {
    if (torn_this_life_) throw JournalError(at_line(n) + "a second torn line in one server's life (damaged)");
    torn_this_life_ = true;
    ++out.holes;
  }

 private:
  bool torn_this_life_ = false;
};

}  // namespace

std::vector<std::string_view> journal_lines_keys() {
  std::vector<std::string_view> keys = {kFormatKey, kVersionKey, kTransportKey, kStartKey};
  for (const auto& [key, kind] : kinds()) keys.push_back(key);
  for (const OptionalField& f : kOptional) keys.push_back(f.key);
  return keys;
}

bool is_journal_lines(std::string_view bytes) { return !bytes.empty() && bytes.front() == '{'; }

JournalLines parse_journal_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    size_t cut = text.find('\n');
    if (cut == std::string_view::npos) break;  // the last line, without its newline: torn
    lines.push_back(text.substr(0, cut));
    text.remove_prefix(cut + 1);
  }
  bool torn_tail = !text.empty();
  Reader reader;
  if (lines.empty()) {
    if (torn_tail) throw JournalError(at_line(1) + "the header line is incomplete");
    throw JournalError("empty: no header line");
  }
  reader.header(lines[0]);
  for (size_t i = 1; i < lines.size(); ++i) {
    // A complete last line was written whole: only one a restart ended
    // (the next line starts a life) can be torn.
    bool ends_life = i + 1 < lines.size() && lines[i + 1].find("\"start\"") != std::string_view::npos;
    reader.line(lines[i], i + 1, ends_life);
  }
  if (torn_tail) reader.torn(lines.size() + 1);
  return std::move(reader.out);
}

}  // namespace rpclab
