// gRPC's own settings (transport/settings.h says what a setting's fields
// mean), read by the adapter from ServerOptions::settings.
#pragma once

#include "transport/settings.h"

namespace rpclab::grpcx {

// The grpc row's server through gRPC's sync API (the default before issue
// 27) instead of the async one: kept so a run can set the two side by side
// (docs/speed.md, "What gRPC's API choice is worth").
inline constexpr TransportSetting kSyncServer = {
    "grpc_sync_server", "--grpc-sync-server", SettingType::kFlag, 0, 1,
    "", "serve through gRPC's sync API (a pool of polling threads) instead of the async server's completion-queue threads",
    false,
    "--grpc-sync-server", kSpeedMatrix, "grpc's server API: off (async, the default),on (sync)",
    "sync-server", "sync server"};

// The async server's threads, each with a completion queue of its own
// (unset: one; grpc_server.cc says why).
inline constexpr TransportSetting kServerThreads = {
    "grpc_server_threads", "--grpc-server-threads", SettingType::kNumber, 1, 64,
    "", "threads of the async server, one completion queue each (default 1)",
    false,
    "--grpc-server-threads", kSpeedMatrix, "threads of grpc's async server, e.g. 1,2 (default 1)",
    "{} server threads", "+{} server threads"};

inline constexpr SettingUse kSettings[] = {{&kSyncServer, Side::kServer}, {&kServerThreads, Side::kServer}};

}  // namespace rpclab::grpcx
