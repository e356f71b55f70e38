#include "core/call_record.h"

#include <charconv>

#include "core/atomic_file.h"

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

}  // namespace

uint32_t CallRecord::intern(const std::string& detail) {
  if (detail.empty()) return 0;
  auto [it, added] = index_.emplace(detail, static_cast<uint32_t>(details_.size()));
  if (added) details_.push_back(detail);
  return it->second;
}

// Line 1: the header as one JSON object. Then one line per call:
//   seq <TAB> kind <TAB> latency_ns [<TAB> library status text]
std::string CallRecord::format() const {
  nlohmann::json head = header;
  head["format"] = kFormat;
  head["version"] = kVersion;
  std::string out = head.dump();
  out.reserve(out.size() + calls.size() * 24);
  out.push_back('\n');
  for (const CallEntry& e : calls) {
    out += std::to_string(e.seq);
    out.push_back('\t');
    out += error_kind_name(e.kind);
    out.push_back('\t');
    out += std::to_string(e.latency_ns);
    if (e.detail) {
      out.push_back('\t');
      out += one_line(details_[e.detail]);
    }
    out.push_back('\n');
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
  if (field("version") != nlohmann::json(kVersion))
    throw RecordError("line 1: unsupported call record version (this build reads version 1)");
  size_t line_no = 1;
  while (!text.empty()) {
    std::string_view line = take_field(text, '\n');
    ++line_no;
    if (line.empty()) continue;
    CallEntry e;
    e.seq = parse_number<uint32_t>(take_field(line, '\t'), line_no);
    std::string_view kind = take_field(line, '\t');
    auto parsed = parse_error_kind(kind);
    if (!parsed) throw RecordError("line " + std::to_string(line_no) + ": unknown outcome '" + std::string(kind) + "'");
    e.kind = *parsed;
    e.latency_ns = parse_number<int64_t>(take_field(line, '\t'), line_no);
    if (!line.empty()) e.detail = record.intern(std::string(line));
    record.calls.push_back(e);
  }
  return record;
}

void CallRecord::write_file(const std::string& path) const { write_file_atomically(path, format()); }

CallRecord CallRecord::read_file(const std::string& path) {
  try {
    return parse(read_whole_file(path));
  } catch (const RecordError& e) {
    throw RecordError(path + ": " + e.what());
  }
}

}  // namespace rpclab
