// What a floor server does with one decoded request: the same ServerCore
// calls the RPC adapters make, and the reply frame to send back.
#pragma once

#include <string>

#include "server/server_core.h"
#include "raw/raw_frame.h"

namespace rpclab::raw {

// Appends the reply to `request` (a whole frame) to `out`. A request the
// server cannot run (unknown procedure, NEXT body of the wrong size) gets an
// ERROR reply saying why, and touches nothing in the core. `origin` is what
// the server knows of the sender (peer, connection); the frame's call id is
// added here.
void serve_frame(ServerCore& core, const FrameView& request, std::string* out, RequestOrigin origin = {});

}  // namespace rpclab::raw
