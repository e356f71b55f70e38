#include "forge.h"

#include "harness/kit/text_table.h"
#include "raw/raw_frame.h"
#include "support/wire.h"

namespace rpclab::test {

using harness::grouped;

void Tally::add(const std::string& kind, size_t bytes) {
  ++kinds_[kind];
  ++count_;
  bytes_ += bytes;
}

std::string Tally::summary() const {
  std::string text = grouped(count_) + " (";
  bool first = true;
  for (const auto& [kind, n] : kinds_) {
    text += (first ? "" : ", ") + kind + " " + grouped(n);
    first = false;
  }
  return text + ")";
}

std::string Forge::random_bytes(size_t max_size) {
  std::string bytes(max_size ? rng_() % (max_size + 1) : 0, '\0');
  for (char& c : bytes) c = static_cast<char>(rng_());
  return bytes;
}

std::string Forge::random_datagram() {
  return random_bytes(below(100) == 0 ? raw::kMaxIpv4UdpPayload : 1500);
}

void Forge::flip_bits(std::string* bytes, size_t from) {
  if (bytes->size() <= from) return;
  for (uint32_t flips = 1 + below(4); flips > 0; --flips) {
    size_t at = from + rng_() % (bytes->size() - from);
    (*bytes)[at] = static_cast<char>((*bytes)[at] ^ (1 << below(8)));
  }
}

void Forge::set_word(std::string* bytes, size_t offset, uint32_t value) {
  if (bytes->size() >= offset + 4) bytes->replace(offset, 4, be32(value));
}

// --- Sun RPC (RFC 5531): xid, CALL, rpcvers, prog, vers, proc, cred, verf, args.

std::string Forge::valid_sunrpc_call() {
  uint32_t xid = static_cast<uint32_t>(rng_());
  switch (below(3)) {
    case 0: return rpc_call(xid, kProgram, 1, 1, be32(rogue_client()) + be32(rogue_seq()));  // NEXT
    case 1: return rpc_call(xid, kProgram, 1, 2, xdr_opaque(random_bytes(1000)));            // ECHO
    default: return rpc_call(xid, kProgram, 1, 0, "");                                      // NULL
  }
}

std::string Forge::sunrpc_call(std::string* kind) {
  std::string call = valid_sunrpc_call();
  // Byte offsets of the call header's words (rpc_call in support/wire.h).
  constexpr size_t kMsgType = 4, kRpcVers = 8, kProg = 12, kVers = 16, kProc = 20, kCredFlavor = 24, kCredLen = 28,
                   kVerfLen = 36, kArgs = 40;
  static const uint32_t kHuge[] = {0xffffffffu, 0x80000000u, 401, (16u << 20) + 1, 0x7fffffffu};
  bool echo = call.substr(kProc, 4) == be32(2);
  switch (below(12)) {
    case 0:
      *kind = "valid";
      break;
    case 1:
      *kind = "truncated";
      call.resize(below(static_cast<uint32_t>(call.size())));
      break;
    case 2:
      *kind = "wrong program";
      set_word(&call, kProg, below(2) ? kProgram + 1 : static_cast<uint32_t>(rng_()));
      break;
    case 3:
      *kind = "wrong version";
      set_word(&call, kVers, below(2) ? 2 : static_cast<uint32_t>(rng_()));
      break;
    case 4:
      *kind = "wrong procedure";
      set_word(&call, kProc, raw::kFirstUnknownProc + below(1000));  // 3-6 are Allman's, 7 Kiraly's, as on the floor
      break;
    case 5:
      *kind = "wrong rpc version";
      set_word(&call, kRpcVers, below(2) ? 3 : 0);
      break;
    case 6:
      *kind = "not a call";
      set_word(&call, kMsgType, 1 + below(5));
      break;
    case 7:
      *kind = "bad credentials";
      set_word(&call, kCredFlavor, 1 + below(6));
      set_word(&call, kCredLen, below(512));
      break;
    case 8:
      *kind = "huge length field";
      if (echo && below(2))
        set_word(&call, kArgs, kHuge[below(5)]);  // the ECHO payload's length
      else
        set_word(&call, below(2) ? kCredLen : kVerfLen, kHuge[below(5)]);
      break;
    case 9:
      *kind = "flipped bits";
      flip_bits(&call);
      break;
    case 10:
      *kind = "trailing junk";
      call += random_bytes(64);
      break;
    default:
      *kind = "random bytes";
      return random_bytes(call.size() + 64);
  }
  return call;
}

std::string Forge::sunrpc_record(std::string* kind) {
  switch (below(6)) {
    case 0: *kind = "huge fragment"; return be32(0x7fffffffu | (below(2) << 31)) + random_bytes(4096);
    case 1: *kind = "empty fragments"; {
      std::string zeros;
      for (uint32_t i = below(500); i > 0; --i) zeros += be32(0);
      return zeros + record(valid_sunrpc_call());
    }
    case 2: *kind = "fragment shorter than the call"; {
      std::string call = valid_sunrpc_call();
      return be32(0x80000000u | below(static_cast<uint32_t>(call.size()))) + call;
    }
    case 3: *kind = "two fragments"; {
      std::string call = valid_sunrpc_call();
      size_t cut = below(static_cast<uint32_t>(call.size()));
      return be32(static_cast<uint32_t>(cut)) + call.substr(0, cut) + record(call.substr(cut));
    }
    default: return record(sunrpc_call(kind));
  }
}

// --- The floor's frames (src/raw/raw_frame.h): u32 length, u32 call id, u8 proc, body.

std::string Forge::valid_raw_frame() {
  uint32_t id = static_cast<uint32_t>(rng_());
  switch (below(3)) {
    case 0: return raw::encode_frame(id, raw::Proc::kNext, raw::encode_next_request(rogue_client(), rogue_seq()));
    case 1: return raw::encode_frame(id, raw::Proc::kEcho, random_bytes(1000));
    default: return raw::encode_frame(id, raw::Proc::kNull, "");
  }
}

std::string Forge::raw_frame(std::string* kind) {
  std::string frame = valid_raw_frame();
  uint32_t length = static_cast<uint32_t>(frame.size() - raw::kHeaderBytes);
  static const uint32_t kHuge[] = {0xffffffffu, 0x80000000u, (16u << 20) + 1, raw::kMaxUdpBody + 1};
  switch (below(9)) {
    case 0:
      *kind = "valid";
      break;
    case 1:
      *kind = "truncated";
      frame.resize(below(static_cast<uint32_t>(frame.size())));
      break;
    case 2:
      *kind = "length off";
      set_word(&frame, 0, below(2) ? length + 1 + below(16) : length - 1 - below(8));
      break;
    case 3:
      *kind = "huge length field";
      set_word(&frame, 0, kHuge[below(4)]);
      break;
    case 4:
      *kind = "wrong procedure";
      frame[8] = static_cast<char>(raw::kFirstUnknownProc + below(0xff - raw::kFirstUnknownProc));
      break;
    case 5: {
      *kind = "NEXT body of another size";
      std::string body = random_bytes(16);
      if (body.size() == raw::kNextRequestBytes) body += "x";
      frame = raw::encode_frame(1, raw::Proc::kNext, body);
      break;
    }
    case 6:
      *kind = "flipped bits";
      flip_bits(&frame);
      break;
    case 7:
      *kind = "trailing junk";
      frame += random_bytes(64);
      break;
    default:
      *kind = "random bytes";
      return random_bytes(frame.size() + 64);
  }
  return frame;
}

// --- gRPC over HTTP/2 (RFC 7540, RFC 7541 literals without indexing).

namespace {

std::string h2_frame(uint8_t type, uint8_t flags, uint32_t stream, const std::string& payload) {
  std::string f;
  f += static_cast<char>(payload.size() >> 16);
  f += static_cast<char>(payload.size() >> 8);
  f += static_cast<char>(payload.size());
  f += static_cast<char>(type);
  f += static_cast<char>(flags);
  return f + be32(stream) + payload;
}

std::string hpack_literal(const std::string& name, const std::string& value) {
  return std::string(1, '\0') + static_cast<char>(name.size()) + name + static_cast<char>(value.size()) + value;
}

// The request headers of a gRPC call to `path`, each a literal.
std::string grpc_headers(const std::string& path) {
  return hpack_literal(":method", "POST") + hpack_literal(":scheme", "http") + hpack_literal(":path", path) +
         hpack_literal(":authority", "127.0.0.1") + hpack_literal("content-type", "application/grpc") +
         hpack_literal("te", "trailers");
}

const std::string kH2Preface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + h2_frame(4, 0, 0, "");  // and empty SETTINGS

std::string grpc_framed(const std::string& message) {
  return std::string(1, '\0') + be32(static_cast<uint32_t>(message.size())) + message;
}

std::string varint(uint64_t v) {
  std::string out;
  do {
    uint8_t b = v & 0x7f;
    v >>= 7;
    out += static_cast<char>(v ? b | 0x80 : b);
  } while (v);
  return out;
}

}  // namespace

std::string Forge::grpc_message(std::string* method) {
  switch (below(3)) {
    case 0:
      *method = "Next";
      return "\x08" + varint(rogue_client()) + "\x10" + varint(rogue_seq());
    case 1:
      *method = "Echo";
      return "\x0a" + varint(500) + std::string(500, 'e');
    default:
      *method = "Null";
      return "";
  }
}

std::string Forge::grpc_connection(std::string* kind) {
  std::string method;
  std::string message = grpc_message(&method);
  std::string framed = grpc_framed(message);
  std::string path = "/rpclab.wire.Rpclab/" + method;
  const std::string& preface = kH2Preface;
  auto headers = [&path] { return grpc_headers(path); };
  std::string header_block;
  switch (below(12)) {
    case 0:
      *kind = "valid";
      break;
    case 1:
      *kind = "flipped bits in the message";
      flip_bits(&framed, 5);
      break;
    case 2:
      *kind = "huge message length";
      set_word(&framed, 1, below(2) ? 0xffffffffu : (64u << 20));
      break;
    case 3:
      *kind = "compressed flag, no encoding";
      framed[0] = 1;
      break;
    case 4:
      *kind = "truncated message";
      framed.resize(below(static_cast<uint32_t>(framed.size())));
      break;
    case 5:
      *kind = "unknown method";
      path = below(2) ? "/rpclab.wire.Rpclab/Nope" : "/" + random_bytes(20);
      break;
    case 6:
      *kind = "garbage header block";
      header_block = random_bytes(200);
      break;
    case 7:
      *kind = "huge frame length";
      return preface + std::string("\xff\xff\xff\x00\x01", 5) + be32(1) + random_bytes(1000);
    case 8: {
      *kind = "flipped bits anywhere";
      std::string bytes = preface + h2_frame(1, 4, 1, headers()) + h2_frame(0, 1, 1, framed);
      flip_bits(&bytes);
      return bytes;
    }
    case 9:
      *kind = "random bytes after the preface";
      return preface + random_bytes(4096);
    case 10: {
      *kind = "truncated connection";
      std::string bytes = preface + h2_frame(1, 4, 1, headers()) + h2_frame(0, 1, 1, framed);
      return bytes.substr(0, below(static_cast<uint32_t>(bytes.size())));
    }
    default:
      *kind = "random bytes";
      return random_bytes(4096);
  }
  if (header_block.empty()) header_block = headers();
  // HEADERS with END_HEADERS, then DATA with END_STREAM, both on stream 1.
  return preface + h2_frame(1, 4, 1, header_block) + h2_frame(0, 1, 1, framed);
}

std::string Forge::sunrpc_record_next() {
  return record(rpc_call(static_cast<uint32_t>(rng_()), kProgram, 1, 1, be32(rogue_client()) + be32(rogue_seq())));
}

std::string Forge::grpc_next() {
  std::string framed = grpc_framed("\x08" + varint(rogue_client()) + "\x10" + varint(rogue_seq()));
  return kH2Preface + h2_frame(1, 4, 1, grpc_headers("/rpclab.wire.Rpclab/Next")) + h2_frame(0, 1, 1, framed);
}

std::string Forge::raw_frame_next() {
  return raw::encode_frame(static_cast<uint32_t>(rng_()), raw::Proc::kNext,
                           raw::encode_next_request(rogue_client(), rogue_seq()));
}

std::string Forge::sunrpc_record_partial() {
  return record(rpc_call(1, kProgram, 1, 2, xdr_opaque(std::string(4000, 'p')))).substr(0, 100);
}

std::string Forge::grpc_partial() {
  std::string kind, bytes = grpc_connection(&kind);
  return bytes.substr(0, bytes.size() / 2);
}

std::string Forge::raw_frame_partial() {
  return raw::encode_frame(1, raw::Proc::kEcho, std::string(4000, 'p')).substr(0, 100);
}

}  // namespace rpclab::test
