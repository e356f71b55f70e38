// Kiraly's record message (seed 003: Kiraly and Szekely, "Analysing RPC and
// Testing the Performance of Solutions", Informatica 42, 2018): the fifth
// shape, after Allman's four. His server held sample records of strings,
// integers, floats and an optional 1 MB photo in memory; his client asked
// for one record by id, with or without its photo, and got the record back.
//
//   GetRecord(id, photo_bytes) -> the record   small in, a record out
//
// rpclab asks for the photo's size where Kiraly asked yes or no, so 0 is his
// "small" and kKiralyPhotoBytes his "binary" (the speed workload runs those
// two). Each IDL types the fields itself: XDR string/int/bool/float and
// opaque<>, proto3 string/int32/bool/float/bytes, an XML-RPC struct with a
// <base64> photo, a JSON object with a base64 string; text transports carry
// the floats as doubles, which hold every float exactly.
//
// Bad input: a photo_bytes above kKiralyMaxPhotoBytes is refused (runs
// nothing, the transport's "invalid argument"); any id is served.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace rpclab {

struct KiralyRecord {
  int32_t id = 0;
  std::string first_name, last_name;
  int32_t age = 0;
  std::string email, phone;
  bool newsletter = false;
  float latitude = 0, longitude = 0;
  std::string photo;  // binary, any bytes; empty = asked without it
};

// Kiraly's "1MB of binary data".
inline constexpr size_t kKiralyPhotoBytes = size_t{1} << 20;
// The largest photo: the record stays under the 16 MiB bound of idl/rpclab.x.
inline constexpr size_t kKiralyMaxPhotoBytes = size_t{15} << 20;
// Bytes of the record beside its photo, at most (strings, numbers): what a
// transport's payload limit must hold on top of the photo.
inline constexpr size_t kKiralyFieldBytes = 256;

// The record with this id, its photo `photo_bytes` long: the same for the
// same arguments on client and server, so the client can check every field.
KiralyRecord kiraly_record(int32_t id, size_t photo_bytes);
// Why a request must be refused, or nothing.
std::optional<std::string> kiraly_refuse(int64_t photo_bytes);
// The client's check: "" when `got` is `want`, else the first field that differs.
std::string kiraly_check(const KiralyRecord& want, const KiralyRecord& got);

}  // namespace rpclab
