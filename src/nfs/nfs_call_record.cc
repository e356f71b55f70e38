#include "nfs/nfs_call_record.h"

#include <stdexcept>

#include "common/atomic_file.h"

namespace rpclab::nfs {

namespace {
constexpr const char* kFormat = "rpclab-nfs-call-record";

nlohmann::json to_line(const NfsCall& c) {
  nlohmann::json j = {{"seq", c.seq}, {"op", op_name(c.op)}, {"name", c.name}, {"rpc", c.rpc},
                      {"nfs", c.nfs ? nlohmann::json(*c.nfs) : nlohmann::json()},
                      {"latency_ns", c.latency_ns}, {"start_ns", c.start_ns}};
  if (!c.detail.empty()) j["detail"] = c.detail;
  if (c.stale_replies) j["stale_replies"] = c.stale_replies;
  if (c.early_timeouts) j["early_timeouts"] = c.early_timeouts;
  if (c.xid) j["xid"] = *c.xid;
  return j;
}

NfsCall from_line(const nlohmann::json& j) {
  NfsCall c;
  c.seq = j.at("seq").get<uint32_t>();
  std::string op = j.at("op").get<std::string>();
  auto parsed = parse_op(op);
  if (!parsed) throw std::runtime_error("unknown operation '" + op + "'");
  c.op = *parsed;
  c.name = j.at("name").get<std::string>();
  c.rpc = j.at("rpc").get<std::string>();
  c.detail = j.value("detail", std::string());
  if (!j.at("nfs").is_null()) c.nfs = j.at("nfs").get<std::string>();
  c.latency_ns = j.at("latency_ns").get<int64_t>();
  c.start_ns = j.at("start_ns").get<int64_t>();
  c.stale_replies = j.value("stale_replies", 0u);
  c.early_timeouts = j.value("early_timeouts", 0u);
  if (j.contains("xid")) c.xid = j.at("xid").get<uint32_t>();
  return c;
}
}  // namespace

std::string NfsCallRecord::format() const {
  nlohmann::json head = header;
  head["format"] = kFormat;
  head["version"] = kVersion;
  std::string out = head.dump() + "\n";
  for (const NfsCall& c : calls) out += to_line(c).dump() + "\n";
  return out;
}

NfsCallRecord NfsCallRecord::parse(std::string_view text) {
  NfsCallRecord record;
  size_t line_no = 0;
  while (!text.empty()) {
    size_t cut = text.find('\n');
    std::string_view line = text.substr(0, cut);
    text = cut == std::string_view::npos ? std::string_view() : text.substr(cut + 1);
    ++line_no;
    if (line.empty()) continue;
    try {
      nlohmann::json j = nlohmann::json::parse(line);
      if (line_no == 1) {
        if (!j.is_object() || j.value("format", nlohmann::json()) != nlohmann::json(kFormat))
          throw std::runtime_error("not an rpclab NFS call record");
        if (j.value("version", nlohmann::json()) != nlohmann::json(kVersion))
          throw std::runtime_error("unsupported NFS call record version");
        record.header = j;
      } else {
        record.calls.push_back(from_line(j));
      }
    } catch (const nlohmann::json::exception& e) {
      throw std::runtime_error("line " + std::to_string(line_no) + ": " + e.what());
    } catch (const std::runtime_error& e) {
      throw std::runtime_error("line " + std::to_string(line_no) + ": " + e.what());
    }
  }
  if (line_no == 0) throw std::runtime_error("empty NFS call record");
  return record;
}

void NfsCallRecord::write_file(const std::string& path) const { write_file_atomically(path, format()); }

NfsCallRecord NfsCallRecord::read_file(const std::string& path) {
  try {
    return parse(read_whole_file(path));
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(path + ": " + e.what());
  }
}

}  // namespace rpclab::nfs
