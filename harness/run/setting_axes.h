// The matrices' axes of transport settings (src/transport/settings.h) and
// the matrix commands' flags that give them, all read from the settings
// rows, so that a new setting needs nothing here. A cell's settings block,
// its JSON and its words are src/transport/settings_table.h's.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/cli_forward.h"
#include "transport/settings_table.h"

namespace rpclab::harness {

using SettingValue = std::optional<int64_t>;  // nullopt: unset, the library's own

// The values a matrix gives settings: for each it varies, a list, each
// value a cell of its own on the rows that take the setting (on either
// side); a setting it does not name stays unset.
struct SettingAxes {
  std::map<std::string, std::vector<SettingValue>> values;  // by setting name

  void vary(const TransportSetting& s, std::vector<SettingValue> axis) {
    values[std::string(s.name)] = std::move(axis);
  }
  // The values of `s` for a cell of `row`: the axis when the row takes it,
  // else unset alone.
  std::vector<SettingValue> axis_for(const TransportRow& row, const TransportSetting& s) const;
  // Every combination of the axes of the settings `row` takes, in the
  // row's order, the last varying fastest.
  std::vector<TransportSettings> combinations(const TransportRow& row) const;
  // The axes of `o` replace these.
  void override_with(const SettingAxes& o);
};

// The matrix commands' flags for settings: one per setting that
// `matrix` (kDependabilityMatrix, kSpeedMatrix) may vary, each a list
// ("off,on" for a flag; numbers, and 'default' where unset has a name).
struct SettingFlags {
  std::map<std::string, std::vector<std::string>> given;  // by flag, as typed
};
void add_setting_axis_flags(CLI::App* cmd, uint8_t matrix, SettingFlags* flags);
// The axes the flags gave (values already checked while parsing).
SettingAxes setting_axes(const SettingFlags& flags);

}  // namespace rpclab::harness
