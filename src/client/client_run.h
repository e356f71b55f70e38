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
#include "transport/transport.h"

namespace rpclab {

// Allman's four (ops/allman.h) take plan.size as their N: the doubles sent
// or asked for (IsPrime ignores it).
// Kiraly's get-record (ops/kiraly.h) takes plan.size as the photo's bytes.
enum class Operation { kNull, kNext, kEcho, kIsPrime, kAverage, kGetRandNums, kLogTransform, kGetRecord };
std::optional<Operation> parse_operation(std::string_view name);
std::string_view operation_name(Operation op);
// What --size counts for `op` ("doubles", "photo bytes"), or "" when it is
// the payload's bytes or nothing.
std::string_view size_unit(Operation op);
// "next | echo | null | is-prime | ...", for --help.
std::string operation_names();
// The largest payload one call of `op` carries either way: ECHO's bytes,
// 8 bytes per double for Allman's vector operations, the photo and the
// other fields' bound for get-record, else 0. What must fit
// a transport's max_payload.
size_t payload_bytes(Operation op, size_t size);

struct ClientPlan {
  Operation op = Operation::kNext;
  uint32_t client_id = 1;
  uint32_t first_seq = 0;
  uint64_t calls = 1000;
  uint64_t warmup = 0;                   // calls made first and not recorded
  size_t size = 0;                       // ECHO payload bytes; N for Allman's operations
  std::optional<int64_t> start_at_ns;    // CLOCK_REALTIME instant to begin the recorded calls
  // No new call after this many ms from the first recorded one (the call
  // under way ends as it would): a cell with timed events lasts a fixed
  // time, `calls` then being only a cap.
  std::optional<int64_t> duration_ms;
};

// Runs the plan, one attempt per call (retry policy none or library);
// returns early, with what it has, once `stop` is set. The header carries
// timing, CPU time and the outcome counts; each call its start time.
CallRecord run_plan(RpcClient& client, const ClientPlan& plan, const std::atomic<bool>& stop);
// The same with the application's retry loop around every call (retry
// policy app): a call's attempts are all in the record.
CallRecord run_plan(AppRetry& retry, const ClientPlan& plan, const std::atomic<bool>& stop);

}  // namespace rpclab
