#include "netem/spec/fault_fields.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "netem/spec/spec_error.h"

namespace rpclab::netem {

namespace {

constexpr unsigned kBoth = kByNetem | kByNftables;

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

void add_once(std::vector<std::string>& words, const std::string& w) {
  if (std::find(words.begin(), words.end(), w) == words.end()) words.push_back(w);
}

double parse_number(const std::string& key, std::string value) {
  if (!value.empty() && value.back() == '%') value.pop_back();  // "5%" reads as 5
  char* end = nullptr;
  errno = 0;
  double v = std::strtod(value.c_str(), &end);
  if (value.empty() || *end != '\0' || errno != 0)
    throw SpecError(fmt::format("{} = \"{}\": not a number", key, value));
  return v;
}

uint64_t parse_seed(const std::string& value) {
  char* end = nullptr;
  errno = 0;
  unsigned long long v = std::strtoull(value.c_str(), &end, 10);
  if (value.empty() || value[0] == '-' || *end != '\0' || errno != 0)
    throw SpecError(fmt::format("seed = \"{}\": must be a whole number from 0 to 2^64-1", value));
  return v;
}

Direction direction_or_throw(const std::string& name, const std::string& shown) {
  auto d = parse_direction(name);
  if (!d) throw SpecError("direction = " + shown + ": must be to-server, to-client or both");
  return *d;
}

void check_range(const char* field, double value, double lo, double hi, const std::string& unit) {
  if (std::isnan(value) || value < lo || value > hi)
    throw SpecError(fmt::format("{} = {}: must be between {} and {} {}", field, value, lo, hi, unit));
}

// std::visit over a row's member with one lambda per member type.
template <class... F>
struct Overload : F... {
  using F::operator()...;
};
template <class... F>
Overload(F...) -> Overload<F...>;

}  // namespace

const std::vector<FaultField>& fault_fields() {
  using S = FaultSpec;
  using U = FieldUnit;
  static const std::vector<FaultField> table = {
      // profile key, JSON key, member, unit, max, max_key, summary word, needs, what, backends
      {"loss", "loss_pct", &S::loss_pct, U::kPercent, 100, nullptr, "loss", nullptr, "loss", kBoth},
      {"loss_corr", "loss_corr_pct", &S::loss_corr_pct, U::kPercent, 100, nullptr, "corr", "loss", "loss correlation",
       kByNetem},
      {"ge_p", "ge_p_pct", &S::ge_p_pct, U::kPercent, 100, nullptr, "loss gemodel p", nullptr, "Gilbert-Elliott loss",
       kByNetem},
      {"ge_r", "ge_r_pct", &S::ge_r_pct, U::kPercent, 100, nullptr, "r", "ge_p", "Gilbert-Elliott loss", kByNetem},
      {"ge_1h", "ge_1h_pct", &S::ge_1h_pct, U::kPercent, 100, nullptr, "1-h", "ge_p", "Gilbert-Elliott loss", kByNetem},
      {"ge_1k", "ge_1k_pct", &S::ge_1k_pct, U::kPercent, 100, nullptr, "1-k", "ge_p", "Gilbert-Elliott loss", kByNetem},
      {"dup", "dup_pct", &S::dup_pct, U::kPercent, 100, nullptr, "dup", nullptr, "duplication", kBoth},
      {"delay_ms", "delay_ms", &S::delay_ms, U::kMilliseconds, 60000, nullptr, "delay", nullptr, "delay", kByNetem},
      {"jitter_ms", "jitter_ms", &S::jitter_ms, U::kMilliseconds, 0, "delay_ms", "jitter", "delay_ms", "delay",
       kByNetem},
      {"reorder", "reorder_pct", &S::reorder_pct, U::kPercent, 100, nullptr, "reorder", "delay_ms", "reorder",
       kByNetem},
      {"corrupt", "corrupt_pct", &S::corrupt_pct, U::kPercent, 100, nullptr, "corrupt", nullptr, "corrupt", kByNetem},
      {"rate", "rate", &S::rate, U::kTcRate, 0, nullptr, "rate", nullptr, "rate", kByNetem},
      {"direction", "direction", &S::direction, U::kDirection, 0, nullptr, nullptr, nullptr, nullptr, kBoth},
      {"seed", "seed", &S::seed, U::kSeed, 0, nullptr, nullptr, nullptr, nullptr, kBoth},
  };
  return table;
}

const FaultField* find_field_by_profile_key(const std::string& key) {
  for (const FaultField& f : fault_fields())
    if (key == f.profile_key) return &f;
  return nullptr;
}

const FaultField* find_field_by_json_key(const std::string& key) {
  for (const FaultField& f : fault_fields())
    if (key == f.json_key) return &f;
  return nullptr;
}

std::string field_profile_keys() {
  std::string out;
  for (const FaultField& f : fault_fields()) out += (out.empty() ? "" : ", ") + std::string(f.profile_key);
  return out;
}

bool is_empty(const FaultSpec& s) {
  for (const FaultField& f : fault_fields())
    if (f.acts(s)) return false;
  return s.events.empty();
}

bool has_link_faults(const FaultSpec& s) {
  for (const FaultField& f : fault_fields())
    if (f.acts(s)) return true;
  for (const FaultEvent& e : s.events)
    if (e.kind->target == EventTarget::kLink) return true;
  return false;
}

std::vector<std::string> unsupported_by(const FaultSpec& s, BackendKind kind) {
  std::vector<std::string> words;
  for (const FaultField& f : fault_fields())
    if (f.acts(s) && !(f.backends & backend_bit(kind))) add_once(words, f.what);
  for (const FaultEvent& e : s.events)
    if (e.kind->target == EventTarget::kLink && !(e.kind->backends & backend_bit(kind)))
      add_once(words, e.kind->name);
    else if (e.for_ms == 0 && (e.kind->needs_duration_on & backend_bit(kind)))
      add_once(words, std::string(e.kind->name) + " without for=");
  return words;
}

std::optional<double> FaultField::number(const FaultSpec& s) const {
  return std::visit(Overload{[&](double FaultSpec::*m) { return std::optional<double>(s.*m); },
                             [&](std::optional<double> FaultSpec::*m) { return s.*m; },
                             [](auto) { return std::optional<double>(); }},
                    member);
}

bool FaultField::acts(const FaultSpec& s) const {
  if (!summary_word) return false;  // a setting (direction, seed) changes nothing by itself
  bool set = std::visit(Overload{[&](double FaultSpec::*m) { return s.*m != 0; },
                                 [&](std::optional<double> FaultSpec::*m) { return (s.*m).has_value(); },
                                 [&](std::string FaultSpec::*m) { return !(s.*m).empty(); },
                                 [](auto) { return false; }},
                        member);
  const FaultField* other = needs ? find_field_by_profile_key(needs) : nullptr;
  return set && (!other || other->acts(s));
}

void FaultField::set_from_text(FaultSpec& s, const std::string& value) const {
  std::visit(Overload{[&](double FaultSpec::*m) { s.*m = parse_number(profile_key, value); },
                      [&](std::optional<double> FaultSpec::*m) { s.*m = parse_number(profile_key, value); },
                      [&](std::string FaultSpec::*m) { s.*m = value; },
                      [&](Direction FaultSpec::*m) { s.*m = direction_or_throw(value, "\"" + value + "\""); },
                      [&](std::optional<uint64_t> FaultSpec::*m) { s.*m = parse_seed(value); }},
             member);
}

void FaultField::set_from_json(FaultSpec& s, const nlohmann::json& value) const {
  std::visit(Overload{[&](double FaultSpec::*m) { s.*m = value.get<double>(); },
                      [&](std::optional<double> FaultSpec::*m) {
                        s.*m = value.is_null() ? std::nullopt : std::optional<double>(value.get<double>());
                      },
                      [&](std::string FaultSpec::*m) { s.*m = value.get<std::string>(); },
                      [&](Direction FaultSpec::*m) { s.*m = direction_or_throw(value.get<std::string>(), value.dump()); },
                      [&](std::optional<uint64_t> FaultSpec::*m) {
                        // get<uint64_t>() would take -1 as 2^64-1 and 1.5 as 1, and a float
                        // past 2^64 is undefined behaviour; only a whole number is a seed.
                        if (!value.is_null() && !value.is_number_unsigned())
                          throw SpecError("seed = " + value.dump() + ": must be a whole number from 0 to 2^64-1");
                        s.*m = value.is_null() ? std::nullopt : std::optional<uint64_t>(value.get<uint64_t>());
                      }},
             member);
}

nlohmann::json FaultField::to_json(const FaultSpec& s) const {
  using J = nlohmann::json;
  return std::visit(Overload{[&](double FaultSpec::*m) { return J(s.*m); },
                             [&](std::optional<double> FaultSpec::*m) { return (s.*m) ? J(*(s.*m)) : J(nullptr); },
                             [&](std::string FaultSpec::*m) { return J(s.*m); },
                             [&](Direction FaultSpec::*m) { return J(direction_name(s.*m)); },
                             [&](std::optional<uint64_t> FaultSpec::*m) { return (s.*m) ? J(*(s.*m)) : J(nullptr); }},
                    member);
}

void FaultField::check(const FaultSpec& s) const {
  if (unit == FieldUnit::kTcRate) {
    const std::string& text = s.*std::get<std::string FaultSpec::*>(member);
    if (!text.empty() && !is_tc_rate(text))
      throw SpecError(fmt::format("{} = {}: must be a number with a unit bit, kbit, mbit, gbit, bps, kbps, "
                                  "mbps or gbps (e.g. 100mbit)", profile_key, text));
    return;
  }
  std::optional<double> v = number(s);
  if (!v) return;
  std::string unit_words = unit == FieldUnit::kPercent ? "(percent)" : "(milliseconds)";
  double hi = max;
  if (max_key) {
    hi = find_field_by_profile_key(max_key)->number(s).value_or(0);
    unit_words = fmt::format("(milliseconds, at most {})", max_key);
  }
  check_range(profile_key, *v, 0, hi, unit_words);
}

std::string FaultField::summary(const FaultSpec& s) const {
  if (!acts(s)) return "";
  if (unit == FieldUnit::kTcRate) return fmt::format("{} {}", summary_word, s.*std::get<std::string FaultSpec::*>(member));
  return fmt::format("{} {}{}", summary_word, *number(s), unit == FieldUnit::kPercent ? "%" : "ms");
}

}  // namespace rpclab::netem
