#include "raw/raw_frame.h"

#include <cstring>

#include <initializer_list>

namespace rpclab::raw {
namespace {

void put_u32(char* out, uint32_t v) {
  out[0] = static_cast<char>(v >> 24);
  out[1] = static_cast<char>(v >> 16);
  out[2] = static_cast<char>(v >> 8);
  out[3] = static_cast<char>(v);
}

uint32_t get_u32(const char* in) {
  auto b = [in](int i) { return uint32_t{static_cast<uint8_t>(in[i])}; };
  return b(0) << 24 | b(1) << 16 | b(2) << 8 | b(3);
}

std::string encode_u32s(std::initializer_list<uint32_t> values) {
  std::string out(values.size() * 4, '\0');
  size_t at = 0;
  for (uint32_t v : values) {
    put_u32(&out[at], v);
    at += 4;
  }
  return out;
}

}  // namespace

std::array<char, kHeaderBytes> encode_header(uint32_t call_id, Proc proc, size_t body_length) {
  std::array<char, kHeaderBytes> header{};
  put_u32(&header[0], static_cast<uint32_t>(body_length));
  put_u32(&header[4], call_id);
  header[8] = static_cast<char>(proc);
  return header;
}

std::string encode_frame(uint32_t call_id, Proc proc, std::string_view body) {
  std::array<char, kHeaderBytes> header = encode_header(call_id, proc, body.size());
  std::string out(header.data(), header.size());
  out.append(body);
  return out;
}

DecodeResult decode_header(std::string_view bytes, FrameHeader* header, size_t max_body) {
  if (bytes.size() < kHeaderBytes) return DecodeResult::kNeedMore;
  header->body_length = get_u32(bytes.data());
  header->call_id = get_u32(bytes.data() + 4);
  header->proc = static_cast<uint8_t>(bytes[8]);
  return header->body_length > max_body ? DecodeResult::kTooLong : DecodeResult::kFrame;
}

DecodeResult decode_datagram(std::string_view datagram, FrameView* frame) {
  FrameHeader header;
  DecodeResult result = decode_header(datagram, &header, kMaxUdpBody);
  if (result == DecodeResult::kNeedMore) return DecodeResult::kMalformed;
  if (result != DecodeResult::kFrame) return result;
  if (header.body_length != datagram.size() - kHeaderBytes) return DecodeResult::kMalformed;
  *frame = {header.call_id, header.proc, datagram.substr(kHeaderBytes)};
  return DecodeResult::kFrame;
}

DecodeResult FrameDecoder::next(FrameView* frame) {
  std::string_view pending = std::string_view(buffer_).substr(consumed_);
  FrameHeader header;
  DecodeResult result = decode_header(pending, &header, max_body_);
  if (result != DecodeResult::kFrame) return result;
  if (pending.size() - kHeaderBytes < header.body_length) return DecodeResult::kNeedMore;
  *frame = {header.call_id, header.proc, pending.substr(kHeaderBytes, header.body_length)};
  consumed_ += kHeaderBytes + header.body_length;
  return DecodeResult::kFrame;
}

void FrameDecoder::feed(std::string_view bytes) {
  // Drop what was already returned before growing, so a long-lived
  // connection holds at most one partial frame plus one read.
  if (consumed_ > 0) {
    buffer_.erase(0, consumed_);
    consumed_ = 0;
  }
  buffer_.append(bytes);
}

std::string encode_next_request(uint32_t client_id, uint32_t seq) { return encode_u32s({client_id, seq}); }

bool decode_next_request(std::string_view body, uint32_t* client_id, uint32_t* seq) {
  if (body.size() != kNextRequestBytes) return false;
  *client_id = get_u32(body.data());
  *seq = get_u32(body.data() + 4);
  return true;
}

std::string encode_next_reply(const NextReply& reply) {
  return encode_u32s({static_cast<uint32_t>(reply.status), reply.expected_seq, reply.times_executed});
}

bool decode_next_reply(std::string_view body, NextReply* reply) {
  if (body.size() != kNextReplyBytes) return false;
  uint32_t status = get_u32(body.data());
  if (status > kLastNextStatus) return false;
  reply->status = static_cast<NextStatus>(status);
  reply->expected_seq = get_u32(body.data() + 4);
  reply->times_executed = get_u32(body.data() + 8);
  return true;
}

}  // namespace rpclab::raw

namespace rpclab::raw {
namespace {

uint64_t bits_of(double v) {
  uint64_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

}  // namespace

std::string encode_i32(int32_t v) { return encode_u32s({static_cast<uint32_t>(v)}); }

bool decode_i32(std::string_view body, int32_t* v) {
  if (body.size() != 4) return false;
  *v = static_cast<int32_t>(get_u32(body.data()));
  return true;
}

std::string encode_doubles(const double* values, size_t n) {
  std::string out(n * 8, '\0');
  for (size_t i = 0; i < n; ++i) {
    uint64_t b = bits_of(values[i]);
    put_u32(&out[8 * i], static_cast<uint32_t>(b >> 32));
    put_u32(&out[8 * i + 4], static_cast<uint32_t>(b));
  }
  return out;
}

bool decode_doubles(std::string_view body, std::vector<double>* out) {
  if (body.size() % 8) return false;
  out->resize(body.size() / 8);
  for (size_t i = 0; i < out->size(); ++i) {
    uint64_t b = uint64_t{get_u32(body.data() + 8 * i)} << 32 | get_u32(body.data() + 8 * i + 4);
    std::memcpy(&(*out)[i], &b, sizeof b);
  }
  return true;
}

}  // namespace rpclab::raw
