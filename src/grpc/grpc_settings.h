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
    "", "serve through gRPC's sync API (a pool of polling threads) instead of one async completion-queue thread",
    false,
    "--grpc-sync-server", kSpeedMatrix, "grpc's server API: off (async, the default),on (sync)",
    "sync-server", "sync server"};

inline constexpr SettingUse kSettings[] = {{&kSyncServer, Side::kServer}};

}  // namespace rpclab::grpcx
