// Sun RPC's own settings, and which each of its rows takes on which side
// (transport/settings.h says what a setting's fields mean). The adapter
// reads them from ClientOptions::settings and ServerOptions::settings.
#pragma once

#include "transport/settings.h"

namespace rpclab::sunrpc {

// libtirpc's UDP message buffer, the same on both sides (the largest ECHO
// that fits follows from it).
inline constexpr TransportSetting kUdpBufsize = {
    "udp_bufsize", "--udp-bufsize", SettingType::kNumber, 1024, 65536,
    "message buffer bytes (default 8800)", "message buffer bytes (default 8800)",
    true,
    "--udp-bufsize", kSpeedMatrix, "message buffer bytes on both sides, e.g. 65536 (default 8800)",
    "", ""};

// Replies that arrived after their call gave up, emptied from the client's
// socket before each call: a remedy under test, off unless asked for.
inline constexpr TransportSetting kDrainStaleReplies = {
    "drain_stale_replies", "--drain-stale-replies", SettingType::kFlag, 0, 1,
    "empty the socket of late replies before each call", "",
    true,
    "--drain", kDependabilityMatrix, "drain stale replies, off,on",
    "drain", "+drain"};

// svc_dg's duplicate request cache on the server, this many entries.
inline constexpr TransportSetting kReplyCache = {
    "drc", "--drc", SettingType::kNumber, 0, 1 << 20,
    "", "duplicate request cache entries (0 = off)",
    true,
    "--drc", kDependabilityMatrix, "reply cache sizes, e.g. 0,1024",
    "drc", "+drc"};

// The port through rpcbind: the client asks it, the server registers.
inline constexpr TransportSetting kRpcbind = {
    "rpcbind", "--rpcbind", SettingType::kFlag, 0, 1,
    "find the server through rpcbind (the port of --server is ignored)", "register with the local rpcbind",
    false, "", 0, "", "rpcbind", "rpcbind"};

// The order is a matrix's order of fanning out (the retransmit interval,
// then the cache, then draining) and the programs' --help order.
inline constexpr SettingUse kUdpSettings[] = {
    {&kRetryTimeout, Side::kClient},     {&kReplyCache, Side::kServer}, {&kDrainStaleReplies, Side::kClient},
    {&kUdpBufsize, Side::kBoth},         {&kRpcbind, Side::kBoth},
};
inline constexpr SettingUse kTcpSettings[] = {
    {&kTcpNodelay, Side::kBoth},
    {&kRpcbind, Side::kBoth},
};

}  // namespace rpclab::sunrpc
