#include "transport/adapter_manifest.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

namespace rpclab {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Reads one manifest, each field through here, so every refusal names the
// file and the field.
class Fields {
 public:
  Fields(const json& j, std::string file) : j_(j), file_(std::move(file)) {}

  [[noreturn]] void fail(std::string_view field, const std::string& why) const {
    throw AdapterManifestError(file_ + ": field '" + std::string(field) + "': " + why);
  }
  const json* find(std::string_view field, bool required) const {
    seen_.insert(std::string(field));
    auto it = j_.find(std::string(field));
    if (it == j_.end()) {
      if (required) fail(field, "missing (docs/adapters.md lists the fields)");
      return nullptr;
    }
    return &*it;
  }
  std::string text(std::string_view field) const {
    const json* v = find(field, true);
    if (!v->is_string() || v->get<std::string>().empty()) fail(field, "must be a non-empty string");
    return v->get<std::string>();
  }
  bool flag(std::string_view field) const {
    const json* v = find(field, false);
    if (!v) return false;
    if (!v->is_boolean()) fail(field, v->dump() + " is not true or false");
    return v->get<bool>();
  }
  int64_t number(std::string_view field, int64_t fallback, int64_t low, int64_t high) const {
    const json* v = find(field, false);
    if (!v) return fallback;
    if (!v->is_number_integer() || v->get<int64_t>() < low || v->get<int64_t>() > high)
      fail(field, v->dump() + " is not a whole number from " + std::to_string(low) + " to " + std::to_string(high));
    return v->get<int64_t>();
  }
  std::vector<std::string> words(std::string_view field, bool may_be_empty) const {
    const json* v = find(field, true);
    if (!v->is_array() || (!may_be_empty && v->empty())) fail(field, "must be a list of strings" + std::string(may_be_empty ? "" : ", not empty"));
    std::vector<std::string> out;
    for (const json& w : *v) {
      if (!w.is_string() || w.get<std::string>().empty()) fail(field, w.dump() + " is not a non-empty string");
      out.push_back(w.get<std::string>());
    }
    return out;
  }
  // One of `choices`, in `field` or in `value` read from it.
  std::string choice(std::string_view field, const json& value, const std::vector<std::string>& choices) const {
    if (value.is_string() && std::count(choices.begin(), choices.end(), value.get<std::string>()))
      return value.get<std::string>();
    std::string list;
    for (const std::string& c : choices) list += (list.empty() ? "" : ", ") + c;
    fail(field, value.dump() + " is not one of " + list);
  }
  void no_strangers() const {
    for (const auto& [key, value] : j_.items())
      if (!seen_.count(key)) fail(key, "unknown (docs/adapter-manifest.schema.json lists the fields)");
  }

 private:
  const json& j_;
  std::string file_;
  mutable std::set<std::string> seen_;
};

std::string substitute(std::string word, const std::string& dir, const std::string& out) {
  const std::pair<std::string_view, const std::string*> keys[] = {{"{dir}", &dir}, {"{out}", &out}};
  for (const auto& [key, value] : keys)
    for (size_t at; (at = word.find(key)) != std::string::npos;) word.replace(at, key.size(), *value);
  return word;
}

std::vector<std::string> argv_of(const Fields& f, std::string_view field, bool may_be_empty, const std::string& dir,
                                 const std::string& out) {
  std::vector<std::string> argv = f.words(field, may_be_empty);
  for (std::string& w : argv) w = substitute(w, dir, out);
  return argv;
}

bool valid_name(const std::string& name) {
  if (name.empty() || name.size() > 31 || name[0] < 'a' || name[0] > 'z') return false;
  return std::all_of(name.begin(), name.end(), [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'; });
}

void read_retry(const Fields& f, AdapterManifest& m) {
  for (const std::string& p : f.words("retry_policies", false)) {
    auto policy = parse_retry_policy(f.choice("retry_policies", json(p), {"none", "library", "app"}));
    if (std::count(m.retry_policies.begin(), m.retry_policies.end(), *policy)) f.fail("retry_policies", "'" + p + "' twice");
    m.retry_policies.push_back(*policy);
  }
  if (!m.takes(RetryPolicy::kNone)) f.fail("retry_policies", "must include \"none\" (every client runs without retries)");
  const json* r = f.find("library_retry", true);
  if (!r->is_object()) f.fail("library_retry", "must be an object {\"kind\": ..., \"what\": ...}");
  static const std::map<std::string, LibraryRetry> kinds = {
      {"none", LibraryRetry::kNone}, {"always_on", LibraryRetry::kAlwaysOn}, {"on_request", LibraryRetry::kOnRequest}};
  auto kind = r->find("kind");
  m.library_retry = kinds.at(f.choice("library_retry.kind", kind == r->end() ? json() : *kind,
                                      {"none", "always_on", "on_request"}));
  auto what = r->find("what");
  if (what == r->end() || !what->is_string() || what->get<std::string>().empty())
    f.fail("library_retry.what", "must be a non-empty string: what the stack does about a failed call");
  m.library_retry_what = what->get<std::string>();
  for (const auto& [key, value] : r->items())
    if (key != "kind" && key != "what") f.fail("library_retry." + key, "unknown");
  if (m.takes(RetryPolicy::kLibrary) && m.library_retry != LibraryRetry::kOnRequest)
    f.fail("retry_policies", "\"library\" is only for a stack whose library_retry.kind is on_request");
}

}  // namespace

bool AdapterManifest::takes(RetryPolicy p) const {
  return std::find(retry_policies.begin(), retry_policies.end(), p) != retry_policies.end();
}

AdapterManifest parse_adapter_manifest(std::string_view text, const std::string& file, const std::string& dir,
                                       const std::string& out) {
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) throw AdapterManifestError(file + ": not a JSON object");
  Fields f(j, file);
  AdapterManifest m;
  m.file = file;
  m.dir = dir;
  m.out = out;
  if (f.number("manifest_version", -1, AdapterManifest::kVersion, AdapterManifest::kVersion) < 0)
    f.fail("manifest_version", "missing (1)");
  m.name = f.text("name");
  if (!valid_name(m.name)) f.fail("name", "'" + m.name + "' is not [a-z][a-z0-9-]*, at most 31 characters");
  if (fs::path(dir).filename() != m.name)
    f.fail("name", "'" + m.name + "' is not its folder's name, '" + fs::path(dir).filename().string() + "'");
  m.summary = f.text("summary");
  m.library = f.text("library");
  m.build = argv_of(f, "build", true, dir, out);
  m.server = argv_of(f, "server", false, dir, out);
  m.client = argv_of(f, "client", false, dir, out);
  const json* carrier = f.find("carrier", true);
  m.datagram = f.choice("carrier", *carrier, {"datagram", "stream"}) == "datagram";
  for (const std::string& name : f.words("operations", false)) {
    auto op = parse_operation(name);
    if (!op) f.fail("operations", "'" + name + "' is not one of " + operation_names());
    m.operations.add(*op);
  }
  if (!m.operations.has(Operation::kNext)) f.fail("operations", "must include \"next\" (the dependability experiment is made of it)");
  read_retry(f, m);
  m.at_most_once = f.flag("at_most_once");
  m.wire_xid = f.flag("wire_xid");
  if (m.wire_xid && !m.datagram) f.fail("wire_xid", "only a datagram carrier's requests can lead with an id");
  m.max_payload = static_cast<size_t>(f.number("max_payload", int64_t{16} << 20, 0, int64_t{16} << 20));
  m.default_timeout_ms = static_cast<int>(f.number("default_timeout_ms", 0, 0, 3600 * 1000));
  m.server_stats = f.flag("server_stats");
  m.start_gate = f.flag("start_gate");
  f.no_strangers();
  return m;
}

}  // namespace rpclab
