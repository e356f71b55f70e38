#include "harness/paths/proxy_log.h"

#include <cctype>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <regex>

#include <nlohmann/json.hpp>

namespace rpclab::harness {
namespace {

// Whether `rest` begins with a field's name and its '=' ("upstream=").
bool starts_field(std::string_view rest) {
  size_t n = 0;
  while (n < rest.size() && (std::islower(static_cast<unsigned char>(rest[n])) || rest[n] == '_')) ++n;
  return n > 0 && n < rest.size() && rest[n] == '=';
}

// The value of `key=`, up to the next " name=" (nginx's lists hold ", ").
std::string field(std::string_view line, std::string_view key) {
  std::string k = " " + std::string(key) + "=";
  size_t at = line.find(k);
  if (at == std::string_view::npos) return "";
  at += k.size();
  size_t end = at;
  for (; end < line.size(); ++end)
    if (line[end] == ' ' && starts_field(line.substr(end + 1))) break;
  return std::string(line.substr(at, end - at));
}

std::string unhex(std::string_view hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) out.push_back(static_cast<char>(std::strtol(std::string(hex.substr(i, 2)).c_str(), nullptr, 16)));
  return out;
}

bool read_varint(const std::string& b, size_t& at, uint64_t& v) {
  v = 0;
  for (int shift = 0; at < b.size() && shift < 64; shift += 7) {
    uint8_t byte = static_cast<uint8_t>(b[at++]);
    v |= uint64_t{byte & 0x7fu} << shift;
    if (!(byte & 0x80)) return true;
  }
  return false;
}

// A gRPC length-prefixed message holding rpclab.wire.NextRequest
// (idl/rpclab.proto: client_id = 1, seq = 2, both varints; proto3 leaves
// out a field that is 0).
std::optional<std::pair<uint32_t, uint32_t>> grpc_next(const std::string& b) {
  if (b.size() < 5 || b[0] != 0) return std::nullopt;
  uint32_t length = (uint32_t(uint8_t(b[1])) << 24) | (uint32_t(uint8_t(b[2])) << 16) | (uint32_t(uint8_t(b[3])) << 8) |
                    uint32_t(uint8_t(b[4]));
  if (length != b.size() - 5) return std::nullopt;
  uint64_t client = 0, seq = 0;
  for (size_t at = 5; at < b.size();) {
    uint64_t key = 0, value = 0;
    if (!read_varint(b, at, key) || (key & 7) != 0 || !read_varint(b, at, value)) return std::nullopt;
    if ((key >> 3) == 1) client = value;
    else if ((key >> 3) == 2) seq = value;
    else return std::nullopt;
  }
  return std::pair{static_cast<uint32_t>(client), static_cast<uint32_t>(seq)};
}

// A number the regexes matched, as an id: from `low` to UINT32_MAX, a
// negative one taken modulo 2^32 (XML-RPC's i4 carries a uint32 so,
// xmlrpc_wire.h's to_i4); nullopt past that (stoul would throw, or wrap to
// another call's id).
std::optional<uint32_t> id_of(const std::string& digits, int64_t low) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (ec != std::errc() || end != digits.data() + digits.size() || v < low || v > int64_t{UINT32_MAX})
    return std::nullopt;
  return static_cast<uint32_t>(v);
}

std::optional<std::pair<uint32_t, uint32_t>> ids(const std::string& client, const std::string& seq, int64_t low) {
  auto c = id_of(client, low), s = id_of(seq, low);
  if (!c || !s) return std::nullopt;
  return std::pair{*c, *s};
}

std::optional<std::pair<uint32_t, uint32_t>> text_next(const std::string& b) {
  static const std::regex xml(R"(<(?:i4|int)>\s*(-?\d+)\s*</(?:i4|int)>[\s\S]*?<(?:i4|int)>\s*(-?\d+)\s*</(?:i4|int)>)");
  static const std::regex json_client(R"re("client_id"\s*:\s*(\d+))re"), json_seq(R"re("seq"\s*:\s*(\d+))re");
  std::smatch m, c, s;
  if (b.find("<methodCall>") != std::string::npos && std::regex_search(b, m, xml))
    return ids(m[1], m[2], INT32_MIN);
  if (std::regex_search(b, c, json_client) && std::regex_search(b, s, json_seq)) return ids(c[1], s[1], 0);
  return std::nullopt;
}

}  // namespace

uint64_t ProxyLog::retried() const {
  uint64_t n = 0;
  for (const ProxyRequest& r : requests) n += r.attempts > 1;
  return n;
}

std::optional<std::pair<uint32_t, uint32_t>> call_of_body(std::string_view hex) {
  if (hex.empty() || hex == "-") return std::nullopt;
  std::string bytes = unhex(hex);
  if (auto c = grpc_next(bytes)) return c;
  return text_next(bytes);
}

std::optional<ProxyRequest> parse_proxy_line(std::string_view line) {
  size_t at = line.find("rpclab-request ");
  bool session = false;
  if (at == std::string_view::npos) {
    at = line.find("rpclab-session ");
    session = true;
  }
  if (at == std::string_view::npos) return std::nullopt;
  line = line.substr(at);
  ProxyRequest r;
  r.session = session;
  r.status = field(line, "status");
  r.worker = field(line, "worker");
  r.ended = std::atof(field(line, "t").c_str());
  if (std::string retries = field(line, "retries"); !retries.empty()) {  // HAProxy: %rc, "+N" after a redispatch
    if (retries[0] == '+') retries.erase(0, 1);
    r.attempts = 1 + std::max(0, std::atoi(retries.c_str()));
    r.upstreams = r.upstream = field(line, "server");
  } else {  // nginx: $upstream_addr, "A, B" for two attempts ("A : B" for an internal redirect)
    std::string upstream = r.upstreams = field(line, "upstream");
    r.attempts = 1;
    for (char ch : upstream) r.attempts += ch == ',';
    size_t last = upstream.find_last_of(", ");
    r.upstream = last == std::string::npos ? upstream : upstream.substr(last + 1);
  }
  r.call = call_of_body(field(line, "body"));
  return r;
}

ProxyLog read_proxy_log(const std::string& path) {
  ProxyLog log;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    if (auto r = parse_proxy_line(line)) log.requests.push_back(*r);
    else ++log.lines_skipped;
  }
  return log;
}

std::vector<CaddyRoundtrip> read_caddy_roundtrips(const std::string& path) {
  std::vector<CaddyRoundtrip> out;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    if (line.find("\"upstream roundtrip\"") == std::string::npos) continue;
    nlohmann::json j = nlohmann::json::parse(line, nullptr, false);  // not a record: Caddy's log line
    if (j.is_discarded() || !j.contains("ts") || !j["ts"].is_number() || !j.contains("upstream") ||
        !j["upstream"].is_string())
      continue;
    out.push_back({j["ts"].get<double>(), j["upstream"].get<std::string>()});
  }
  return out;
}

}  // namespace rpclab::harness
