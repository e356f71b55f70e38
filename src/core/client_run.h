// The client's side of an experiment: make N calls of one kind through an
// RpcClient and record each outcome and latency. Knows nothing of transports.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>

#include "core/app_retry.h"
#include "core/call_record.h"
#include "core/transport.h"

namespace rpclab {

// Allman's four (core/allman.h) take plan.size as their N: the doubles sent
// or asked for (IsPrime ignores it).
enum class Operation { kNull, kNext, kEcho, kIsPrime, kAverage, kGetRandNums, kLogTransform };
std::optional<Operation> parse_operation(std::string_view name);
std::string_view operation_name(Operation op);
// "next | echo | null | is-prime | ...", for --help.
std::string operation_names();
// The largest payload one call of `op` carries either way: ECHO's bytes,
// 8 bytes per double for Allman's vector operations, else 0. What must fit
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

// The ECHO payload a client sends: the same bytes for the same (size,
// client), so a reply can be checked byte for byte.
std::string make_payload(size_t size, uint32_t client_id);

// Runs the plan, one attempt per call (retry policy none or library);
// returns early, with what it has, once `stop` is set. The header carries
// timing, CPU time and the outcome counts; each call its start time.
CallRecord run_plan(RpcClient& client, const ClientPlan& plan, const std::atomic<bool>& stop);
// The same with the application's retry loop around every call (retry
// policy app): a call's attempts are all in the record.
CallRecord run_plan(AppRetry& retry, const ClientPlan& plan, const std::atomic<bool>& stop);

}  // namespace rpclab
