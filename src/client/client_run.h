// src/client/: a client's side of an experiment, for every transport: the
// plan's calls through an RpcClient (this file), the connection modes
// (connect_mode.h), the application's retry loop (app_retry.h) and the call
// record it writes (call_record.h). May include common/, ops/ and
// transport/; never server/ or an adapter.
//
// The client's side of an experiment: make N calls of one kind through an
// RpcClient and record each outcome and latency. Knows nothing of transports.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>

#include "client/app_retry.h"
#include "client/call_record.h"
#include "ops/operation.h"
#include "transport/transport.h"

namespace rpclab {

struct ClientPlan {
  Operation op = Operation::kNext;
  uint32_t client_id = 1;
  uint32_t first_seq = 0;
  uint64_t calls = 1000;
  uint64_t warmup = 0;                   // calls made first and not recorded
  size_t size = 0;                       // what --size counts for plan.op (its row's size_unit)
  std::optional<int64_t> start_at_ns;    // CLOCK_REALTIME instant to begin the recorded calls
  // Or the folder of a start gate (common/start_gate.h) to pass, after the
  // warm-up, before the recorded calls.
  std::optional<std::string> start_gate;
  // No new call after this many ms from the first recorded one (the call
  // under way ends as it would): a cell with timed events lasts a fixed
  // time, `calls` then being only a cap.
  std::optional<int64_t> duration_ms;
  // Open loop: recorded call i is due at the first one's start + i / rate
  // seconds (CallRecord::due_ns); the client waits until it is due and
  // never when late, one call outstanding at a time. Unset: closed loop,
  // each call as soon as the last one ended.
  std::optional<double> rate_per_s;
};

// Runs the plan, one attempt per call (retry policy none or library);
// returns early, with what it has, once `stop` is set. The header carries
// timing, CPU time and the outcome counts; each call its start time.
CallRecord run_plan(RpcClient& client, const ClientPlan& plan, const std::atomic<bool>& stop);
// The same with the application's retry loop around every call (retry
// policy app): a call's attempts are all in the record.
CallRecord run_plan(AppRetry& retry, const ClientPlan& plan, const std::atomic<bool>& stop);

}  // namespace rpclab
