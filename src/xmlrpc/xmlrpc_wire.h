// rpclab's procedures as XML-RPC, so that any XML-RPC client can call them
// (docs/architecture.md, "Wire names"): over HTTP at path /RPC2 (and as the
// same XML on xmlrpc-c's packet stream),
//   rpclab.null()                        -> i4 0
//   rpclab.next(i4 client_id, i4 seq)    -> struct {status, expected_seq, times_executed}, each i4
//   rpclab.echo(base64 payload)          -> base64, the same bytes
//   rpclab.isPrime(i4 n)                 -> boolean
//   rpclab.average(array of double)      -> double
//   rpclab.getRandNums(i4 count)         -> array of double, in [0, 1)
//   rpclab.logTransform(array of double) -> array of double, their natural logs
//   rpclab.getRecord(i4 id, i4 photo_bytes) -> Kiraly's record: struct {id i4,
//       first_name string, last_name string, age i4, email string, phone
//       string, newsletter boolean, latitude double, longitude double,
//       photo base64 (absent when photo_bytes is 0)}
// XML-RPC has no unsigned integer: a 32-bit id or count above 2^31-1
// travels as the negative i4 with the same 32 bits.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <xmlrpc-c/base.hpp>

#include "ops/kiraly.h"
#include "server/server_core.h"

namespace rpclab::xmlrpc {

inline constexpr const char* kPath = "/RPC2";
inline constexpr const char* kNullMethod = "rpclab.null";
inline constexpr const char* kNextMethod = "rpclab.next";
inline constexpr const char* kEchoMethod = "rpclab.echo";
inline constexpr const char* kIsPrimeMethod = "rpclab.isPrime";
inline constexpr const char* kAverageMethod = "rpclab.average";
inline constexpr const char* kGetRandNumsMethod = "rpclab.getRandNums";
inline constexpr const char* kLogTransformMethod = "rpclab.logTransform";
inline constexpr const char* kGetRecordMethod = "rpclab.getRecord";

// The largest ECHO payload: the bound of idl/rpclab.x, as for every transport.
inline constexpr size_t kMaxPayload = size_t{16} << 20;

inline int32_t to_i4(uint32_t v) { return static_cast<int32_t>(v); }
inline uint32_t from_i4(int32_t v) { return static_cast<uint32_t>(v); }

xmlrpc_c::value next_reply_value(const NextReply& reply);
// False, with what is wrong in `why`, unless `value` is a NEXT reply struct.
bool read_next_reply(const xmlrpc_c::value& value, NextReply* reply, std::string* why);

// Allman's vectors as XML-RPC arrays of <double>, which xmlrpc-c prints
// and parses itself.
xmlrpc_c::value doubles_value(const std::vector<double>& values);
// False, with what is wrong in `why`, unless `value` is an array of doubles.
bool read_doubles(const xmlrpc_c::value& value, std::vector<double>* out, std::string* why);

// Kiraly's record as an XML-RPC struct, the photo as <base64>; and back.
xmlrpc_c::value record_value(const KiralyRecord& record);
// False, with what is wrong in `why`, unless `value` is such a struct.
bool read_record(const xmlrpc_c::value& value, KiralyRecord* record, std::string* why);

// xmlrpc-c refuses XML over 512 KiB by default, in the server and the
// client alike (one process-wide limit). Raised, once, so that a 16 MiB
// ECHO fits: its base64 with xmlrpc-c's line breaks is about 23 MB.
void allow_largest_echo();

// "xmlrpc-c 1.33.14", for the records.
std::string library_version();

}  // namespace rpclab::xmlrpc
