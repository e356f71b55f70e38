#include "transport/transport_options.h"

namespace rpclab {
namespace {

std::string refusal(const TransportRow& row, const OptionRow& option) {
  std::string takers = transports_accepting(option.option);
  return std::string(option.flag) + ": " + std::string(row.name) + " does not take this option (" +
         (takers.empty() ? "no transport does" : "it applies to " + takers) + ")";
}

template <typename Options, typename SetIn>
std::string first_refused(const TransportRow& row, const Options& options, SetIn set_in) {
  for (const OptionRow& option : transport_options()) {
    auto is_set = set_in(option);
    if (is_set && is_set(options) && !row.accepts(option.option)) return refusal(row, option);
  }
  return "";
}

}  // namespace

const std::vector<OptionRow>& transport_options() {
  static const std::vector<OptionRow> table = {
      {kOptRetryTimeout, "--retry-timeout", [](const ClientOptions& o) { return o.retry_timeout_ms.has_value(); },
       nullptr},
      {kOptUdpBufsize, "--udp-bufsize", [](const ClientOptions& o) { return o.udp_bufsize != 0; },
       [](const ServerOptions& o) { return o.udp_bufsize != 0; }},
      {kOptDrainStaleReplies, "--drain-stale-replies", [](const ClientOptions& o) { return o.drain_stale_replies; },
       nullptr},
      {kOptReplyCache, "--drc", nullptr, [](const ServerOptions& o) { return o.drc_entries != 0; }},
      {kOptTcpNodelayClient, "--tcp-nodelay", [](const ClientOptions& o) { return o.tcp_nodelay; }, nullptr},
      {kOptTcpNodelayServer, "--tcp-nodelay", nullptr, [](const ServerOptions& o) { return o.tcp_nodelay; }},
      {kOptRpcbind, "--rpcbind", [](const ClientOptions& o) { return o.use_rpcbind; },
       [](const ServerOptions& o) { return o.use_rpcbind; }},
  };
  return table;
}

std::string option_error(const TransportRow& row, const ClientOptions& options) {
  return first_refused(row, options, [](const OptionRow& o) { return o.set_in_client; });
}

std::string option_error(const TransportRow& row, const ServerOptions& options) {
  return first_refused(row, options, [](const OptionRow& o) { return o.set_in_server; });
}

}  // namespace rpclab
