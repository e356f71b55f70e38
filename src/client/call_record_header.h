// What the harness reads of a call record's header (line 1), whoever wrote
// it, rpclab-client or an adapter's client: one type, one JSON mapping.
// Every other header field is written for people and kept, not read.
// docs/adapters.md ("What the harness reads") names each of these fields,
// and a test holds the page to this list: a field read here and not named
// there fails it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "client/call_record.h"

namespace rpclab {

struct CallRecordHeader {
  std::string format;
  int version = 0;
  bool interrupted = false;       // stopped by SIGTERM before calls_planned
  int64_t start_realtime_ns = 0;  // the first recorded call's start, CLOCK_REALTIME
  int64_t end_realtime_ns = 0;    // the last one's end
  int64_t wall_ns = 0;            // their span, monotonic clock
  double cpu_user_us = 0;         // the client process's CPU time over the recorded calls
  double cpu_sys_us = 0;
  double rate_per_s = 0;          // open loop: --rate; 0 = closed loop
  std::string server;             // "HOST:PORT" (or the list as given)
  std::vector<std::string> servers;
  nlohmann::json settings = nlohmann::json::object();  // the resolved client settings
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(CallRecordHeader, format, version, interrupted, start_realtime_ns,
                                                end_realtime_ns, wall_ns, cpu_user_us, cpu_sys_us, rate_per_s, server,
                                                servers, settings)

// `record`'s header as the harness reads it; throws RecordError for a
// field of the wrong type.
inline CallRecordHeader header_of(const CallRecord& record) {
  const nlohmann::json& header = record.header;
  try {
    return header.is_object() ? header.get<CallRecordHeader>() : CallRecordHeader{};
  } catch (const nlohmann::json::exception& e) {
    throw RecordError(std::string("line 1: a header field of the wrong type: ") + e.what());
  }
}

}  // namespace rpclab
