#include "harness/run/setting_axes.h"

#include "common/cli_support.h"

namespace rpclab::harness {
namespace {

// 'default' or a whole number in the setting's range, for a matrix list.
CLI::Validator number_or_default(const TransportSetting& s) {
  return CLI::Validator(
      [min = s.min, max = s.max](std::string& text) -> std::string {
        if (text == "default" || number_problem(text, min, max, true).empty()) return "";
        return "'" + text + "' is not 'default' or a whole number from " + range_text(min, max);
      },
      "'default' or " + range_text(s.min, s.max));
}

SettingValue parse_value(const TransportSetting& s, const std::string& text) {
  if (s.type == SettingType::kFlag) return text == "on" ? SettingValue(1) : std::nullopt;
  if (text == "default") return std::nullopt;
  return std::stoll(text);
}

}  // namespace

std::vector<SettingValue> SettingAxes::axis_for(const TransportRow& row, const TransportSetting& s) const {
  auto axis = values.find(std::string(s.name));
  if (axis == values.end() || !row.takes(s, Side::kBoth)) return {std::nullopt};
  return axis->second;
}

std::vector<TransportSettings> SettingAxes::combinations(const TransportRow& row) const {
  std::vector<TransportSettings> all = {TransportSettings{}};
  for (const SettingUse& use : row.settings) {
    std::vector<TransportSettings> more;
    for (const TransportSettings& base : all)
      for (const SettingValue& v : axis_for(row, *use.setting)) {
        TransportSettings s = base;
        s.set(*use.setting, v);
        more.push_back(s);
      }
    all.swap(more);
  }
  return all;
}

void SettingAxes::override_with(const SettingAxes& o) {
  for (const auto& [name, axis] : o.values) values[name] = axis;
}









void add_setting_axis_flags(CLI::App* cmd, uint8_t matrix, SettingFlags* flags) {
  for (const TransportSetting* s : all_settings()) {
    if (s->matrix_flag.empty() || !(s->matrices & matrix)) continue;
    std::string flag(s->matrix_flag);
    std::string help = transports_taking(*s, Side::kBoth) + ": " + std::string(s->matrix_help);
    CLI::Option* o = cmd->add_option(flag, flags->given[flag], help)->delimiter(',');
    if (s->type == SettingType::kFlag)
      o->check(CLI::IsMember({"off", "on"}));
    else if (s->type == SettingType::kNumberOrDefault)
      o->check(number_or_default(*s));
    else
      o->check(in_range(s->min, s->max));
  }
}

SettingAxes setting_axes(const SettingFlags& flags) {
  SettingAxes axes;
  for (const TransportSetting* s : all_settings()) {
    auto given = flags.given.find(std::string(s->matrix_flag));
    if (s->matrix_flag.empty() || given == flags.given.end() || given->second.empty()) continue;
    std::vector<SettingValue> axis;
    for (const std::string& text : given->second) axis.push_back(parse_value(*s, text));
    axes.vary(*s, axis);
  }
  return axes;
}

}  // namespace rpclab::harness
