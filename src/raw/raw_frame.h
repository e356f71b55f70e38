// The floor transports' wire format: the smallest framing that can carry
// rpclab's three procedures over a plain socket, with no RPC library.
//
// Every message, request or reply, over TCP or UDP, is one frame:
//
//   u32 body_length | u32 call_id | u8 proc | body (body_length bytes)
//
// Integers are in network byte order (big-endian), as java.io's
// DataOutputStream writes them in Allman's java.net baseline and as XDR does.
// body_length counts the body only, so a 9-byte header always comes first.
// call_id is the client's number for the call, copied into the reply: over
// UDP a late reply to an earlier call must not be taken for this call's, and
// over TCP the client skips a reply left over from a call that timed out.
//
// Bodies:
//   NULL   request empty                    reply empty
//   NEXT   request u32 client_id, u32 seq   reply u32 status, u32 expected_seq,
//                                                 u32 times_executed
//   ECHO   request the payload              reply the same bytes
//   Allman's operations (ops/allman.h), doubles as IEEE 754 big-endian,
//   8 bytes each, as java.io's writeDouble sends them in Allman's baseline:
//   ISPRIME      request i32 n              reply u8 1 or 0
//   AVERAGE      request N doubles          reply one double
//   GETRANDNUMS  request i32 count          reply count doubles
//   LOGTRANSFORM request N doubles          reply N doubles
//   Kiraly's record (ops/kiraly.h); a string or the photo is a u32 length
//   and its bytes, a float IEEE 754 big-endian in 4 bytes:
//   GETRECORD    request i32 id, u32 photo_bytes
//                reply   i32 id, first_name, last_name, i32 age, email, phone,
//                        u8 newsletter, f32 latitude, f32 longitude, photo
//   ERROR  (replies only) why the server refused the request, as text
//
// Decoding never trusts a length: a body longer than kMaxBody is rejected
// before anything is allocated for it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ops/kiraly.h"
#include "server/server_core.h"

namespace rpclab::raw {

enum class Proc : uint8_t {
  kNull = 0,
  kNext = 1,
  kEcho = 2,
  kIsPrime = 3,
  kAverage = 4,
  kGetRandNums = 5,
  kLogTransform = 6,
  kGetRecord = 7,
  kError = 0xff
};
// The first procedure number no request may carry (forged-input tests).
inline constexpr uint8_t kFirstUnknownProc = 8;

inline constexpr size_t kHeaderBytes = 9;
// The ECHO bound of idl/rpclab.x, so every transport carries the same sizes.
inline constexpr size_t kMaxBody = size_t{16} << 20;
inline constexpr size_t kMaxIpv4UdpPayload = 65507;  // 65535 - IP header - UDP header
inline constexpr size_t kMaxUdpBody = kMaxIpv4UdpPayload - kHeaderBytes;
inline constexpr size_t kNextRequestBytes = 8;
inline constexpr size_t kNextReplyBytes = 12;

struct FrameHeader {
  uint32_t body_length = 0;
  uint32_t call_id = 0;
  uint8_t proc = 0;  // a Proc value, or garbage for the receiver to refuse
};

// A decoded frame; `body` points into the buffer it was decoded from.
struct FrameView {
  uint32_t call_id = 0;
  uint8_t proc = 0;
  std::string_view body;
};

enum class DecodeResult {
  kFrame,      // a whole frame was decoded
  kNeedMore,   // the bytes so far are a valid prefix of a frame
  kTooLong,    // the header claims a body longer than the limit
  kMalformed,  // a datagram whose length field disagrees with its size
};

std::array<char, kHeaderBytes> encode_header(uint32_t call_id, Proc proc, size_t body_length);
std::string encode_frame(uint32_t call_id, Proc proc, std::string_view body);
// Reads a header from the first kHeaderBytes of `bytes` (kNeedMore if fewer).
DecodeResult decode_header(std::string_view bytes, FrameHeader* header, size_t max_body = kMaxBody);

// One datagram must hold exactly one frame, nothing more or less.
DecodeResult decode_datagram(std::string_view datagram, FrameView* frame);

// Frames from a byte stream that arrives in pieces of any size. After
// kTooLong the stream cannot be resynchronised: drop the connection.
class FrameDecoder {
 public:
  explicit FrameDecoder(size_t max_body = kMaxBody) : max_body_(max_body) {}
  void feed(std::string_view bytes);
  // The view stays valid until the next feed().
  DecodeResult next(FrameView* frame);
  size_t buffered() const { return buffer_.size() - consumed_; }
  size_t capacity() const { return buffer_.capacity(); }  // memory held, used or not

 private:
  size_t max_body_;
  std::string buffer_;
  size_t consumed_ = 0;  // bytes of buffer_ already returned as frames
};

std::string encode_next_request(uint32_t client_id, uint32_t seq);
bool decode_next_request(std::string_view body, uint32_t* client_id, uint32_t* seq);
std::string encode_next_reply(const NextReply& reply);
bool decode_next_reply(std::string_view body, NextReply* reply);
std::string encode_i32(int32_t v);
bool decode_i32(std::string_view body, int32_t* v);  // exactly 4 bytes
std::string encode_doubles(const double* values, size_t n);
bool decode_doubles(std::string_view body, std::vector<double>* out);  // a multiple of 8 bytes
std::string encode_record_request(int32_t id, uint32_t photo_bytes);
bool decode_record_request(std::string_view body, int32_t* id, uint32_t* photo_bytes);  // exactly 8 bytes
std::string encode_record(const KiralyRecord& record);
bool decode_record(std::string_view body, KiralyRecord* record);  // exactly one record, no bytes after

}  // namespace rpclab::raw
