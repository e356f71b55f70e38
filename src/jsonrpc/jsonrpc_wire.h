// rpclab's procedures as JSON-RPC 2.0 over HTTP POST at path "/", so that
// any JSON-RPC client can call them (docs/architecture.md, "Wire names"):
//   null()                            -> null
//   next({client_id, seq})            -> {"status", "expected_seq", "times_executed"}
//   echo({payload})                   -> {"payload"}, the same base64 text
//   isPrime({n})                      -> true | false
//   average({values})                 -> a number
//   getRandNums({count})              -> [numbers in [0, 1)]
//   logTransform({values})            -> [their natural logs]
//   getRecord({id, photo_bytes})      -> Kiraly's record: {"id", "first_name",
//       "last_name", "age", "email", "phone", "newsletter", "latitude",
//       "longitude", "photo" (base64; absent when photo_bytes is 0)}
// Parameters by name; ids and counts are JSON integers 0..4294967295; the
// status is NextStatus's number (0 in order, 1 out of order, 2 not
// recorded, 3 stale); payloads are base64 (RFC 4648, padded, no line breaks).
#pragma once

#include <json/json.h>

#include <cstdint>
#include <string>
#include <vector>

#include "ops/kiraly.h"
#include "server/server_core.h"

namespace rpclab::jsonrpc {

inline constexpr const char* kPath = "/";
inline constexpr const char* kNullMethod = "null";
inline constexpr const char* kNextMethod = "next";
inline constexpr const char* kEchoMethod = "echo";
inline constexpr const char* kIsPrimeMethod = "isPrime";
inline constexpr const char* kAverageMethod = "average";
inline constexpr const char* kGetRandNumsMethod = "getRandNums";
inline constexpr const char* kLogTransformMethod = "logTransform";
inline constexpr const char* kGetRecordMethod = "getRecord";

// The largest ECHO payload: the bound of idl/rpclab.x, as for every transport.
inline constexpr size_t kMaxPayload = size_t{16} << 20;
// A request body the server reads at most: the largest ECHO's base64 and
// room for the envelope. A longer one is refused with HTTP 413.
inline constexpr size_t kMaxRequestBytes = size_t{24} << 20;

Json::Value next_reply_value(const NextReply& reply);
// False, with what is wrong in `why`, unless `value` is a NEXT reply.
bool read_next_reply(const Json::Value& value, NextReply* reply, std::string* why);

// A member that must be an integer 0..2^32-1; false if it is not.
bool read_u32(const Json::Value& object, const char* name, uint32_t* out);

// Allman's vectors as JSON arrays of numbers, which jsoncpp prints (17
// significant digits) and parses itself.
Json::Value doubles_value(const std::vector<double>& values);
// False unless `value` is an array of numbers.
bool read_doubles(const Json::Value& value, std::vector<double>* out);
// A member that must be an integer -2^31..2^31-1; false if it is not.
bool read_i32(const Json::Value& object, const char* name, int32_t* out);

// Kiraly's record as a JSON object, the photo as a base64 string; and back.
Json::Value record_value(const KiralyRecord& record);
// False, with what is wrong in `why`, unless `value` is such an object.
bool read_record(const Json::Value& value, KiralyRecord* record, std::string* why);

// "libjson-rpc-cpp 0.7.0, jsoncpp 1.9.5", for the records.
std::string library_version();

}  // namespace rpclab::jsonrpc
