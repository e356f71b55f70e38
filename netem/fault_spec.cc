#include "netem/fault_spec.h"

#include <cmath>
#include <algorithm>
#include <cctype>

#include <fmt/format.h>

namespace rpclab::netem {

namespace {

void check_range(const char* field, double value, double lo, double hi, const char* unit) {
  if (std::isnan(value) || value < lo || value > hi)
    throw SpecError(fmt::format("{} = {}: must be between {} and {} {}", field, value, lo, hi, unit));
}

std::string pct(double v) { return fmt::format("{}%", v); }

// "100mbit", "1.5Gbit", "800kbps": a number, then one of tc's rate units.
bool is_tc_rate(const std::string& text) {
  size_t unit = text.find_first_not_of("0123456789.");
  if (unit == 0 || unit == std::string::npos || std::count(text.begin(), text.end(), '.') > 1 ||
      text[0] == '.' || text[unit - 1] == '.')
    return false;
  std::string u = text.substr(unit);
  std::transform(u.begin(), u.end(), u.begin(), [](unsigned char c) { return std::tolower(c); });
  for (const char* ok : {"bit", "kbit", "mbit", "gbit", "tbit", "bps", "kbps", "mbps", "gbps", "tbps"})
    if (u == ok) return true;
  return false;
}

// The names used in JSON, beside the member they fill.
struct JsonField {
  const char* key;
  double FaultSpec::*member;
};
constexpr JsonField kNumberFields[] = {
    {"loss_pct", &FaultSpec::loss_pct},       {"loss_corr_pct", &FaultSpec::loss_corr_pct},
    {"dup_pct", &FaultSpec::dup_pct},         {"delay_ms", &FaultSpec::delay_ms},
    {"jitter_ms", &FaultSpec::jitter_ms},     {"reorder_pct", &FaultSpec::reorder_pct},
    {"corrupt_pct", &FaultSpec::corrupt_pct},
};
struct GeField {
  const char* key;          // in JSON
  const char* profile_key;  // in a profile and in messages
  std::optional<double> FaultSpec::*member;
};
constexpr GeField kGeFields[] = {
    {"ge_p_pct", "ge_p", &FaultSpec::ge_p_pct},
    {"ge_r_pct", "ge_r", &FaultSpec::ge_r_pct},
    {"ge_1h_pct", "ge_1h", &FaultSpec::ge_1h_pct},
    {"ge_1k_pct", "ge_1k", &FaultSpec::ge_1k_pct},
};

}  // namespace

std::string direction_name(Direction d) {
  switch (d) {
    case Direction::kToServer: return "to-server";
    case Direction::kToClient: return "to-client";
    case Direction::kBoth: return "both";
  }
  return "both";
}

std::optional<Direction> parse_direction(const std::string& name) {
  if (name == "to-server") return Direction::kToServer;
  if (name == "to-client") return Direction::kToClient;
  if (name == "both") return Direction::kBoth;
  return std::nullopt;
}

bool FaultSpec::empty() const {
  return loss_pct == 0 && !ge_p_pct && dup_pct == 0 && delay_ms == 0 && jitter_ms == 0 && reorder_pct == 0 &&
         corrupt_pct == 0 && rate.empty();
}

bool FaultSpec::only_loss_and_dup() const {
  return loss_corr_pct == 0 && !ge_p_pct && !ge_r_pct && !ge_1h_pct && !ge_1k_pct && delay_ms == 0 &&
         jitter_ms == 0 && reorder_pct == 0 && corrupt_pct == 0 && rate.empty();
}

void FaultSpec::validate() const {
  check_range("loss", loss_pct, 0, 100, "(percent)");
  check_range("loss_corr", loss_corr_pct, 0, 100, "(percent)");
  for (const auto& f : kGeFields)
    if (this->*f.member) check_range(f.profile_key, *(this->*f.member), 0, 100, "(percent)");
  if ((ge_r_pct || ge_1h_pct || ge_1k_pct) && !ge_p_pct)
    throw SpecError("ge_r/ge_1h/ge_1k given without ge_p: Gilbert-Elliott loss needs ge_p (0..100 percent)");
  if (ge_p_pct && (loss_pct != 0 || loss_corr_pct != 0))
    throw SpecError(fmt::format("loss = {} and ge_p = {}: use either random loss or Gilbert-Elliott, not both",
                                loss_pct, *ge_p_pct));
  check_range("dup", dup_pct, 0, 100, "(percent)");
  check_range("delay_ms", delay_ms, 0, 60000, "(milliseconds)");
  check_range("jitter_ms", jitter_ms, 0, delay_ms, "(milliseconds, at most delay_ms)");
  check_range("reorder", reorder_pct, 0, 100, "(percent)");
  if (reorder_pct > 0 && delay_ms == 0)
    throw SpecError(fmt::format("reorder = {}: needs delay_ms > 0 (netem reorders by sending some packets "
                                "at once and delaying the rest)", reorder_pct));
  check_range("corrupt", corrupt_pct, 0, 100, "(percent)");
  if (!rate.empty() && !is_tc_rate(rate))
    throw SpecError(fmt::format("rate = {}: must be a number with a unit bit, kbit, mbit, gbit, bps, kbps, "
                                "mbps or gbps (e.g. 100mbit)", rate));
}

nlohmann::json FaultSpec::to_json() const {
  nlohmann::json j;
  j["profile"] = profile;
  for (const auto& f : kNumberFields) j[f.key] = this->*f.member;
  for (const auto& f : kGeFields)
    j[f.key] = (this->*f.member) ? nlohmann::json(*(this->*f.member)) : nlohmann::json(nullptr);
  j["rate"] = rate;
  j["direction"] = direction_name(direction);
  j["seed"] = seed ? nlohmann::json(*seed) : nlohmann::json(nullptr);
  return j;
}

FaultSpec FaultSpec::from_json(const nlohmann::json& j) {
  if (!j.is_object()) throw SpecError("fault spec: expected a JSON object");
  FaultSpec s;
  try {
    for (const auto& [key, value] : j.items()) {
      bool known = false;
      for (const auto& f : kNumberFields)
        if (key == f.key) known = true, s.*f.member = value.get<double>();
      for (const auto& f : kGeFields)
        if (key == f.key) known = true, s.*f.member = value.is_null() ? std::nullopt
                                                                      : std::optional<double>(value.get<double>());
      if (key == "profile") known = true, s.profile = value.get<std::string>();
      if (key == "rate") known = true, s.rate = value.get<std::string>();
      if (key == "seed") {
        known = true;
        // get<uint64_t>() would take -1 as 2^64-1 and 1.5 as 1, and a float
        // past 2^64 is undefined behaviour; only a whole number is a seed.
        if (!value.is_null() && !value.is_number_unsigned())
          throw SpecError("seed = " + value.dump() + ": must be a whole number from 0 to 2^64-1");
        s.seed = value.is_null() ? std::nullopt : std::optional<uint64_t>(value.get<uint64_t>());
      }
      if (key == "direction") {
        known = true;
        auto d = parse_direction(value.get<std::string>());
        if (!d) throw SpecError("direction = " + value.dump() + ": must be to-server, to-client or both");
        s.direction = *d;
      }
      if (!known) throw SpecError("fault spec: unknown field \"" + key + "\"");
    }
  } catch (const nlohmann::json::exception& e) {
    throw SpecError(std::string("fault spec: ") + e.what());
  }
  s.validate();
  return s;
}

std::string FaultSpec::summary() const {
  if (empty()) return "none";
  std::string out;
  auto add = [&out](const std::string& part) { out += (out.empty() ? "" : " ") + part; };
  if (loss_pct > 0) add("loss " + pct(loss_pct) + (loss_corr_pct > 0 ? " corr " + pct(loss_corr_pct) : ""));
  if (ge_p_pct) {
    std::string ge = "loss gemodel p " + pct(*ge_p_pct);
    if (ge_r_pct) ge += " r " + pct(*ge_r_pct);
    if (ge_1h_pct) ge += " 1-h " + pct(*ge_1h_pct);
    if (ge_1k_pct) ge += " 1-k " + pct(*ge_1k_pct);
    add(ge);
  }
  if (dup_pct > 0) add("dup " + pct(dup_pct));
  if (delay_ms > 0) add(fmt::format("delay {}ms", delay_ms) + (jitter_ms > 0 ? fmt::format(" jitter {}ms", jitter_ms) : ""));
  if (reorder_pct > 0) add("reorder " + pct(reorder_pct));
  if (corrupt_pct > 0) add("corrupt " + pct(corrupt_pct));
  if (!rate.empty()) add("rate " + rate);
  add(direction_name(direction));
  return out;
}

}  // namespace rpclab::netem
