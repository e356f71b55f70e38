// The transport table's settings (settings.h), read from its rows: every
// setting some row takes, who takes which on which side, the flags of
// rpclab-client and rpclab-server, the usage error for a flag the chosen
// transport does not take; and a block's JSON (in a harness cell), its
// words (in a cell's label, a report's row name, a folder's name) and its
// flags on a command line.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/cli_forward.h"
#include "transport/transport.h"

namespace rpclab {

// Every setting some row takes, each once, in the order rows first list them.
const std::vector<const TransportSetting*>& all_settings();
const TransportSetting* find_setting(std::string_view name);
// The transports that take `s` on `side` (Side::kBoth: on either), "a, b".
std::string transports_taking(const TransportSetting& s, Side side);
// Of `settings`, those `row` takes on `side`.
TransportSettings taken_by(const TransportRow& row, Side side, const TransportSettings& settings);

// One flag for each setting some row takes on `side`, setting it in
// `*settings` (which must outlive parsing). Its help names who takes it.
void add_setting_flags(CLI::App& app, Side side, TransportSettings* settings);
// "" when `row` takes every setting set in `settings` on `side`; else one
// message saying which flag, that this transport does not take it, and
// which transports do.
std::string setting_refusal(const TransportRow& row, Side side, const TransportSettings& settings);

// Into a cell's JSON: every setting written in every cell (unset too), the
// others only when set (TransportSetting::in_every_cell).
void write_settings(const TransportSettings& settings, nlohmann::json& cell);
// Out of a cell's JSON (keys that are no setting's are not read). Throws
// nlohmann::json::exception on a value of the wrong type.
TransportSettings read_settings(const nlohmann::json& cell);
// One setting's value as a cell writes it (false, 0 or null when unset).
nlohmann::json setting_json(const TransportSettings& settings, const TransportSetting& s);

// The program flags that set `settings`: "--drc 1024", "--tcp-nodelay".
std::vector<std::string> setting_args(const TransportSettings& settings);
// " retry 20ms drc drain": each set setting's label words, in the table's order.
std::string label_words(const TransportSettings& settings);
// " +drc +drain": each set setting's words in a report's row name.
std::string row_words(const TransportSettings& settings);
// "-udp_bufsize-65536-tcp_nodelay": each set setting, for a name in a
// path ("" when none is set).
std::string settings_path_part(const TransportSettings& settings);
// Whether `a` and `b` set the same, as far as `transport`'s row takes the
// settings (a transport not in the table, like sockperf, takes none).
bool same_settings_for(std::string_view transport, const TransportSettings& a, const TransportSettings& b);

}  // namespace rpclab
