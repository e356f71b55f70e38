// Transport settings: what a transport's row takes beyond the address, the
// timeout, the connection mode and the retry policy (the retransmit
// interval, a reply cache, TCP_NODELAY, ...). Each is one TransportSetting,
// defined with the transport it belongs to (sunrpc/sunrpc_settings.h) or
// here when several libraries share it, and each row of the transport
// table lists those it takes and on which side (TransportRow::settings).
// Everything else is read from these rows: the programs' flags and their
// refusals (settings_table.h), a cell's JSON and label, the matrices'
// axes and the reports' row names. A new setting is its definition, one
// line in its row's list, and its use in the adapter.
//
// Values travel in a TransportSettings block (ClientOptions, ServerOptions,
// a harness cell): by setting name, unset = the library's own behaviour.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace rpclab {

// Which program takes a setting: the client, the server, or both.
enum class Side : uint8_t { kClient = 1, kServer = 2, kBoth = 3 };
constexpr bool on_side(Side taken, Side side) {
  return (static_cast<uint8_t>(taken) & static_cast<uint8_t>(side)) != 0;
}

enum class SettingType : uint8_t {
  kFlag,             // on or off: a flag on the programs, "off,on" in a matrix, true/false in a cell
  kNumber,           // an integer; 0 is unset (off, or the library's own), and a cell says 0
  kNumberOrDefault,  // an integer; unset is "default" in a matrix list and null in a cell
};

// The matrices of the harness that may vary a setting (bits).
inline constexpr uint8_t kDependabilityMatrix = 1;
inline constexpr uint8_t kSpeedMatrix = 2;

struct TransportSetting {
  std::string_view name;         // its key in a cell's JSON and in records: "drc"
  std::string_view flag;         // on rpclab-client and rpclab-server: "--drc"
  SettingType type;
  int64_t min, max;              // a number's range on the command line
  std::string_view client_help;  // rpclab-client --help, after "<the transports taking it>: "
  std::string_view server_help;  // rpclab-server --help, the same
  // Written in every cell, unset too, as cells had it before settings were
  // rows (a cell's JSON is its identity: --resume matches on it). A
  // setting added since is written only when set, so older cells keep
  // their identity.
  bool in_every_cell;
  // How the harness's matrices may vary it: through this flag of the
  // commands of `matrices`, a list of values each making a cell of its own
  // (for the rows that take it). "" = no matrix varies it.
  std::string_view matrix_flag;
  uint8_t matrices;
  std::string_view matrix_help;
  // Its words when set: in a cell's label ("drc", "retry {}ms" with the
  // value for {}), and in a report's row name ("+drc"); "" = none. A
  // label names the cell's folder in a run, so it stays as it was.
  std::string_view label;
  std::string_view row_words;

  bool numeric() const { return type != SettingType::kFlag; }
};

// The settings of one program, cell or row: by name, only those set.
class TransportSettings {
 public:
  // The value of `s`, or nullopt when unset (a flag set is 1).
  std::optional<int64_t> get(const TransportSetting& s) const;
  bool on(const TransportSetting& s) const { return get(s).has_value(); }
  int64_t value_or(const TransportSetting& s, int64_t fallback) const { return get(s).value_or(fallback); }
  // A value that means unset (nullopt, or 0: off) clears it.
  void set(const TransportSetting& s, std::optional<int64_t> value);
  void set_on(const TransportSetting& s) { set(s, 1); }

  bool empty() const { return values_.empty(); }
  const std::map<std::string, int64_t>& values() const { return values_; }
  bool operator==(const TransportSettings& o) const { return values_ == o.values_; }
  bool operator!=(const TransportSettings& o) const { return values_ != o.values_; }

 private:
  std::map<std::string, int64_t> values_;
};

// TCP_NODELAY on the sockets of a stream transport whose library lets it
// be set (gRPC, curl and libmicrohttpd always set it themselves): every
// row that takes it lists it, with the sides its library allows.
inline constexpr TransportSetting kTcpNodelay = {
    "tcp_nodelay", "--tcp-nodelay", SettingType::kFlag, 0, 1,
    "disable Nagle's algorithm (gRPC and curl, under xmlrpc and jsonrpc, always do)",
    "disable Nagle's algorithm (gRPC and libmicrohttpd, under jsonrpc, always do)",
    false,
    "--tcp-nodelay", kSpeedMatrix,
    "TCP_NODELAY off,on, on the sides whose transport takes it (default off, the libraries' own setting)",
    "nodelay", "nodelay"};

// A library's retransmit interval, on a transport whose library resends a
// call by itself (TransportTraits::retransmits): experiments and reports
// reason about it for every such row, whichever takes it.
inline constexpr TransportSetting kRetryTimeout = {
    "retry_timeout_ms", "--retry-timeout", SettingType::kNumberOrDefault, 1, 3600 * 1000,
    "retransmit interval in ms (default 15000)", "",
    true,
    "--retry-timeouts", kDependabilityMatrix, "retransmit intervals, 'default' or ms, e.g. default,20",
    "retry {}ms", ""};

// One side's use of a setting, in a row's list.
struct SettingUse {
  const TransportSetting* setting;
  Side side;
};

}  // namespace rpclab
