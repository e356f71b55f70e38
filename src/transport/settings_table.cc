#include "transport/settings_table.h"

#include "common/cli_support.h"

namespace rpclab {
namespace {

std::string_view help_of(const TransportSetting& s, Side side) {
  return side == Side::kClient ? s.client_help : s.server_help;
}

const TransportSetting* find_setting_in(const std::vector<const TransportSetting*>& list, std::string_view name) {
  for (const TransportSetting* s : list)
    if (s->name == name) return s;
  return nullptr;
}

std::string words_of(const TransportSetting& s, std::string_view words, int64_t value) {
  if (words.empty()) return "";
  std::string w(words);
  if (size_t at = w.find("{}"); at != std::string::npos) w.replace(at, 2, std::to_string(value));
  return " " + w;
}

}  // namespace

const std::vector<const TransportSetting*>& all_settings() {
  static const std::vector<const TransportSetting*> all = [] {
    std::vector<const TransportSetting*> found;
    for (const TransportRow& row : transports())
      for (const SettingUse& use : row.settings)
        if (!find_setting_in(found, use.setting->name)) found.push_back(use.setting);
    return found;
  }();
  return all;
}

const TransportSetting* find_setting(std::string_view name) { return find_setting_in(all_settings(), name); }

std::string transports_taking(const TransportSetting& s, Side side) {
  std::string names;
  for (const TransportRow& row : transports())
    if (row.takes(s, side)) names += (names.empty() ? "" : ", ") + std::string(row.name);
  return names;
}

TransportSettings taken_by(const TransportRow& row, Side side, const TransportSettings& settings) {
  TransportSettings kept;
  for (const SettingUse& use : row.settings)
    if (on_side(use.side, side)) kept.set(*use.setting, settings.get(*use.setting));
  return kept;
}

void add_setting_flags(CLI::App& app, Side side, TransportSettings* settings) {
  for (const TransportSetting* s : all_settings()) {
    std::string takers = transports_taking(*s, side);
    if (takers.empty()) continue;  // no transport takes it on this side
    std::string help = takers + ": " + std::string(help_of(*s, side));
    if (!s->numeric()) {
      app.add_flag_function(std::string(s->flag), [s, settings](int64_t count) { settings->set(*s, count > 0); },
                            help);
      continue;
    }
    app.add_option_function<int64_t>(
           std::string(s->flag), [s, settings](const int64_t& value) { settings->set(*s, value); }, help)
        ->check(in_range(s->min, s->max));
  }
}

std::string setting_refusal(const TransportRow& row, Side side, const TransportSettings& settings) {
  for (const TransportSetting* s : all_settings()) {
    if (!settings.on(*s) || row.takes(*s, side)) continue;
    std::string takers = transports_taking(*s, side);
    return std::string(s->flag) + ": " + std::string(row.name) + " does not take this option (" +
           (takers.empty() ? "no transport does" : "it applies to " + takers) + ")";
  }
  return "";
}

nlohmann::json setting_json(const TransportSettings& settings, const TransportSetting& s) {
  std::optional<int64_t> v = settings.get(s);
  switch (s.type) {
    case SettingType::kFlag: return v.has_value();
    case SettingType::kNumber: return v.value_or(0);
    case SettingType::kNumberOrDefault: return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
  }
  return nullptr;
}

void write_settings(const TransportSettings& settings, nlohmann::json& cell) {
  for (const TransportSetting* s : all_settings())
    if (s->in_every_cell || settings.on(*s)) cell[std::string(s->name)] = setting_json(settings, *s);
}

TransportSettings read_settings(const nlohmann::json& cell) {
  TransportSettings settings;
  for (const TransportSetting* s : all_settings()) {
    auto it = cell.find(std::string(s->name));
    if (it == cell.end() || it->is_null()) continue;
    settings.set(*s, s->type == SettingType::kFlag ? int64_t{it->get<bool>()} : it->get<int64_t>());
  }
  return settings;
}

std::vector<std::string> setting_args(const TransportSettings& settings) {
  std::vector<std::string> args;
  for (const TransportSetting* s : all_settings()) {
    auto v = settings.get(*s);
    if (!v) continue;
    args.emplace_back(s->flag);
    if (s->numeric()) args.push_back(std::to_string(*v));
  }
  return args;
}

std::string settings_path_part(const TransportSettings& settings) {
  std::string part;
  for (const TransportSetting* s : all_settings())
    if (auto v = settings.get(*s)) part += "-" + std::string(s->name) + (s->numeric() ? "-" + std::to_string(*v) : "");
  return part;
}

std::string label_words(const TransportSettings& settings) {
  std::string words;
  for (const TransportSetting* s : all_settings())
    if (auto v = settings.get(*s)) words += words_of(*s, s->label, *v);
  return words;
}

std::string row_words(const TransportSettings& settings) {
  std::string words;
  for (const TransportSetting* s : all_settings())
    if (auto v = settings.get(*s)) words += words_of(*s, s->row_words, *v);
  return words;
}

bool same_settings_for(std::string_view transport, const TransportSettings& a, const TransportSettings& b) {
  const TransportRow* row = find_transport(transport);
  if (!row) return true;
  for (const SettingUse& use : row->settings)
    if (a.get(*use.setting) != b.get(*use.setting)) return false;
  return true;
}

}  // namespace rpclab
