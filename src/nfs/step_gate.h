// A step the workload client waits at until the harness lets it go: the
// handshake that makes an event (a server restart between a call's
// execution and its retransmission, harness/nfs/restart_event.h) strike a
// chosen step and no other. The harness makes a FIFO; the client, before
// the step's first call, opens its reading end and waits for one byte; the
// harness sees a reader there (its non-blocking open for writing
// succeeds), does what must be done before the step (the replies dropped),
// then writes the byte.
#pragma once

#include <chrono>
#include <string>

namespace rpclab::nfs {

// The client's side: opens `fifo` for reading and waits up to `within` for
// one byte. Throws std::runtime_error when it cannot open it, when the
// writer went away without a byte, or when the time is up.
void wait_at_gate(const std::string& fifo, std::chrono::milliseconds within);

}  // namespace rpclab::nfs
