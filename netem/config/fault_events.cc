#include "netem/config/fault_events.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <map>
#include <numeric>
#include <sstream>

#include <fmt/format.h>

#include "netem/events/link_events.h"
#include "netem/events/server_events.h"
#include "netem/spec/backend_kind.h"
#include "netem/spec/spec_error.h"

namespace rpclab::netem {

namespace {

constexpr const char* kKeys = "at, for, every, jitter, target, delay";

// "2000ms", "2s", "1.5s" -> milliseconds; whole milliseconds only.
int64_t parse_duration(const std::string& key, const std::string& text) {
  size_t unit = text.find_first_not_of("0123456789.-+");
  std::string number = text.substr(0, unit), suffix = unit == std::string::npos ? "" : text.substr(unit);
  if (suffix != "ms" && suffix != "s")
    throw SpecError(fmt::format("{} = \"{}\": a duration needs a unit, ms or s (e.g. 2000ms or 2s)", key, text));
  char* end = nullptr;
  errno = 0;
  double v = std::strtod(number.c_str(), &end);
  if (number.empty() || *end != '\0' || errno != 0 || std::isnan(v))
    throw SpecError(fmt::format("{} = \"{}\": not a duration (e.g. 2000ms or 2s)", key, text));
  double ms = suffix == "s" ? v * 1000 : v;
  if (ms < 0) throw SpecError(fmt::format("{} = {}: must not be negative", key, text));
  if (ms > kMaxEventMs) throw SpecError(fmt::format("{} = {}: must be at most 24 hours", key, text));
  if (ms != std::floor(ms)) throw SpecError(fmt::format("{} = {}: must be whole milliseconds", key, text));
  return static_cast<int64_t>(ms);
}

int64_t json_ms(const nlohmann::json& j, const char* key) {
  const nlohmann::json& v = j.at(key);
  if (!v.is_number_integer()) throw SpecError(fmt::format("{} = {}: must be whole milliseconds", key, v.dump()));
  return v.get<int64_t>();
}

// How long one occurrence can take, start jitter included: the window no
// other event of its group may share. An instant still takes 1 ms.
int64_t window_ms(const FaultEvent& e) { return std::max<int64_t>(e.for_ms, 1) + e.jitter_ms; }

int64_t floor_div(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

// Whether some occurrence of `b` can start within (-window(b), window(a))
// of some occurrence of `a`. Starts are at + k * every (k >= 0). With both
// repeated, the gaps between starts take every value d + n * gcd(periods)
// eventually, so only gcd matters.
bool can_overlap(const FaultEvent& a, const FaultEvent& b) {
  int64_t lo = -window_ms(b), hi = window_ms(a);  // open interval for start(b) - start(a)
  int64_t d = b.at_ms - a.at_ms;
  if (!a.every_ms && !b.every_ms) return d > lo && d < hi;
  if (a.every_ms && b.every_ms) {
    int64_t g = std::gcd(*a.every_ms, *b.every_ms);
    int64_t first = (floor_div(lo - d, g) + 1) * g;  // the least multiple of g above lo - d
    return first < hi - d;
  }
  // One repeats: gaps are d - k * P (a repeats) or d + k * P (b repeats), k >= 0.
  int64_t p = a.every_ms ? *a.every_ms : *b.every_ms;
  if (b.every_ms) {
    int64_t k = std::max<int64_t>(0, floor_div(lo - d, p) + 1);  // least k with d + kP > lo
    return d + k * p < hi;
  }
  int64_t k = std::max<int64_t>(0, floor_div(d - hi, p) + 1);  // least k with d - kP < hi
  return d - k * p > lo;
}

std::string ms(int64_t v) { return fmt::format("{}ms", v); }

// "replica:2" -> 2: the vocabulary for the server an event strikes.
int parse_target(const std::string& text) {
  const std::string prefix = "replica:";
  std::string number = text.rfind(prefix, 0) == 0 ? text.substr(prefix.size()) : "";
  char* end = nullptr;
  errno = 0;
  long k = number.empty() ? 0 : std::strtol(number.c_str(), &end, 10);
  if (number.empty() || *end != '\0' || errno != 0 || k < 1 || k > 1000)
    throw SpecError(fmt::format("target = \"{}\": give replica:K, K the replica's number from 1 (e.g. "
                                "target=replica:2)", text));
  return static_cast<int>(k);
}

}  // namespace

const std::vector<EventKind>& event_kinds() {
  static const std::vector<EventKind> table = {
      {"partition", EventTarget::kLink, true, "partition", kByNetem | kByNftables,
       "every packet between the two hosts dropped, both ways, for for= ms", apply_partition},
      {"reset", EventTarget::kLink, false, "reset", kByNftables | kByNetem,
       "every TCP connection between the hosts reset (ss -K); with for=, every TCP segment answered with a reset "
       "for that long (netem backend: by iptables, for= only)", apply_reset, kByNetem},
      {"server-crash", EventTarget::kServer, true, "server", kByNetem | kByNftables,
       "the server SIGKILLed, restarted on the same address after for= ms", apply_server_crash},
      {"server-stall", EventTarget::kServer, true, "server", kByNetem | kByNftables,
       "the server SIGSTOPped, SIGCONTinued after for= ms", apply_server_stall},
      {"server-reset", EventTarget::kServer, false, "server", kByNetem | kByNftables,
       "every TCP connection of the server reset, in its own namespace (ss -K: the kernel sends each peer a "
       "reset); the server runs on", apply_server_reset},
      {"server-out-of-pool", EventTarget::kPool, true, "pool", kByNetem | kByNftables,
       "the server taken out of the proxy's pool (HAProxy: its runtime API's state maint), back in after for= "
       "ms; the server runs on", apply_server_out_of_pool},
      {"server-slow", EventTarget::kServerLink, true, "server-link", kByNetem,
       "delay=D added to every packet the server sends, on its own link only (tc netem), for for= ms",
       apply_server_slow},
  };
  return table;
}

const EventKind* find_event_kind(std::string_view name) {
  for (const EventKind& k : event_kinds())
    if (name == k.name) return &k;
  return nullptr;
}

std::string event_kind_names() {
  std::string out;
  for (const EventKind& k : event_kinds()) out += (out.empty() ? "" : ", ") + std::string(k.name);
  return out;
}

void validate(const FaultEvent& e) {
  if (!e.kind) throw SpecError("event: no kind (known: " + event_kind_names() + ")");
  auto fail = [&e](const std::string& why) { throw SpecError(fmt::format("event {}: {}", e.kind->name, why)); };
  for (auto [key, v] : {std::pair{"at", e.at_ms}, {"for", e.for_ms}, {"jitter", e.jitter_ms}})
    if (v < 0 || v > kMaxEventMs) fail(fmt::format("{} = {}: must be between 0 and 24 hours", key, ms(v)));
  if (e.kind->needs_duration && e.for_ms == 0) fail("needs for=DURATION (how long it lasts), e.g. for=2s");
  // A server event without a duration is one instant: nothing of it lasts.
  if (e.kind->target != EventTarget::kLink && !e.kind->needs_duration && e.for_ms > 0)
    fail("is one instant: it takes no for=");
  if (e.replica < 1) fail(fmt::format("target = replica:{}: replicas count from 1", e.replica));
  if (e.kind->target == EventTarget::kLink && e.replica != 1)
    fail("acts on the link between the client and the server (or a path's middle host), not on one server: it "
         "takes no target=");
  bool slows = e.kind->target == EventTarget::kServerLink;
  if (slows && (e.delay_ms <= 0 || e.delay_ms > kMaxEventMs))
    fail("needs delay=DURATION (what its link adds to each packet), e.g. delay=100ms");
  if (!slows && e.delay_ms != 0) fail("takes no delay= (only an event that slows a server's link does)");
  if (!e.every_ms) return;
  int64_t every = *e.every_ms;
  if (every <= 0 || every > kMaxEventMs) fail(fmt::format("every = {}: must be between 1ms and 24 hours", ms(every)));
  if (e.for_ms + e.jitter_ms >= every)
    fail(fmt::format("for = {}{} is not shorter than every = {}: each {} would run into the next", ms(e.for_ms),
                     e.jitter_ms ? " plus jitter = " + ms(e.jitter_ms) : "", ms(every), e.kind->name));
}

void to_json(nlohmann::json& j, const FaultEvent& e) {
  j = {{"kind", e.kind ? e.kind->name : ""},
       {"at_ms", e.at_ms},
       {"for_ms", e.for_ms},
       {"every_ms", e.every_ms ? nlohmann::json(*e.every_ms) : nlohmann::json(nullptr)},
       {"jitter_ms", e.jitter_ms}};
  // Only when given: a spec without them writes exactly what records made
  // before replicas held, so --resume and compare still match them.
  if (e.replica != 1) j["replica"] = e.replica;
  if (e.delay_ms != 0) j["delay_ms"] = e.delay_ms;
}

void from_json(const nlohmann::json& j, FaultEvent& out) {
  if (!j.is_object()) throw SpecError("event: expected a JSON object");
  FaultEvent e;
  try {
    for (const auto& [key, value] : j.items())
      if (key != "kind" && key != "at_ms" && key != "for_ms" && key != "every_ms" && key != "jitter_ms" &&
          key != "replica" && key != "delay_ms")
        throw SpecError("event: unknown field \"" + key + "\"");
    std::string name = j.at("kind").get<std::string>();
    e.kind = find_event_kind(name);
    if (!e.kind) throw SpecError("event \"" + name + "\": unknown kind (known: " + event_kind_names() + ")");
    e.at_ms = json_ms(j, "at_ms");
    e.for_ms = json_ms(j, "for_ms");
    e.jitter_ms = json_ms(j, "jitter_ms");
    if (!j.at("every_ms").is_null()) e.every_ms = json_ms(j, "every_ms");
    if (j.contains("replica")) {
      if (!j["replica"].is_number_integer())
        throw SpecError("event: replica = " + j["replica"].dump() + ": not a number");
      int64_t k = j["replica"].get<int64_t>();
      if (k < 1 || k > 1000) throw SpecError(fmt::format("event: replica = {}: replicas count from 1", k));
      e.replica = static_cast<int>(k);
    }
    if (j.contains("delay_ms")) e.delay_ms = json_ms(j, "delay_ms");
  } catch (const nlohmann::json::exception& ex) {
    throw SpecError(std::string("event: ") + ex.what());
  }
  validate(e);
  out = e;
}

std::string summary(const FaultEvent& e) {
  std::string s = fmt::format("{} at {}", e.kind ? e.kind->name : "?", ms(e.at_ms));
  if (e.for_ms) s += " for " + ms(e.for_ms);
  if (e.every_ms) s += " every " + ms(*e.every_ms);
  if (e.jitter_ms) s += " jitter " + ms(e.jitter_ms);
  if (e.delay_ms) s += " delay " + ms(e.delay_ms);
  if (e.replica != 1) s += fmt::format(" on replica {}", e.replica);
  return s;
}

FaultEvent parse_event(const std::string& text) {
  std::istringstream in(text);
  std::string name;
  if (!(in >> name))
    throw SpecError("event: give a kind (" + event_kind_names() + ") and key=value pairs, e.g. "
                    "event = partition at=2s for=2s every=5s");
  FaultEvent e;
  e.kind = find_event_kind(name);
  if (!e.kind) throw SpecError("event \"" + name + "\": unknown kind (known: " + event_kind_names() + ")");
  std::map<std::string, std::string> seen;
  for (std::string word; in >> word;) {
    size_t eq = word.find('=');
    if (eq == std::string::npos) throw SpecError(fmt::format("event {}: \"{}\" is not key=value", name, word));
    std::string key = word.substr(0, eq), value = word.substr(eq + 1);
    if (!seen.emplace(key, value).second) throw SpecError(fmt::format("event {}: {} is given twice", name, key));
    try {
      if (key == "at") e.at_ms = parse_duration(key, value);
      else if (key == "for") e.for_ms = parse_duration(key, value);
      else if (key == "every") e.every_ms = parse_duration(key, value);
      else if (key == "jitter") e.jitter_ms = parse_duration(key, value);
      else if (key == "target") e.replica = parse_target(value);
      else if (key == "delay") e.delay_ms = parse_duration(key, value);
      else throw SpecError(fmt::format("unknown parameter \"{}\" (known: {})", key, kKeys));
    } catch (const SpecError& ex) {
      throw SpecError(fmt::format("event {}: {}", name, ex.what()));
    }
  }
  validate(e);
  return e;
}

void validate_events(const std::vector<FaultEvent>& events) {
  for (const FaultEvent& e : events) validate(e);
  for (size_t i = 0; i < events.size(); ++i)
    for (size_t j = i + 1; j < events.size(); ++j) {
      const FaultEvent &a = events[i], &b = events[j];
      // One group on two replicas acts on two things.
      if (std::string_view(a.kind->group) != b.kind->group || a.replica != b.replica || !can_overlap(a, b)) continue;
      throw SpecError(fmt::format("events \"{}\" and \"{}\" can overlap{}: move one, or make each shorter than the gap "
                                  "between them", summary(a), summary(b),
                                  a.kind == b.kind ? "" : " (both act on the " + std::string(a.kind->group) + ")"));
    }
}

}  // namespace rpclab::netem
