// Target raw_frame: the floor transports' framing (src/raw/raw_frame.h) and
// the service behind it (raw_service.h).
//
// Input: one byte n (mod 32), then n piece lengths of one byte each, then
// the byte stream. The stream is fed to a FrameDecoder in those pieces (the
// rest as one last piece), as TCP reads would deliver it, and every frame
// is served by serve_frame into a ServerCore. The frames and the final
// state must be exactly those of the same stream fed in one piece, and each
// reply must decode as a frame that answers its request. The stream is also
// taken as one raw-udp datagram.
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_targets.h"
#include "raw/raw_frame.h"
#include "raw/raw_service.h"

namespace rpclab::fuzz {
namespace {

using raw::DecodeResult;
using raw::FrameView;
using raw::Proc;

constexpr size_t kLedgerBytes = size_t{4} << 20;

ServerCore& core() {
  static ServerCore core(kLedgerBytes);
  return core;
}

struct Decoded {
  std::vector<std::string> frames;  // call_id, proc and body, flattened for comparison
  DecodeResult last = DecodeResult::kNeedMore;
};

std::string flatten(const FrameView& f) {
  return raw::encode_frame(f.call_id, static_cast<Proc>(f.proc), f.body);
}

// Allman's operations answer with as many values as they were asked for,
// Kiraly's GetRecord with the record asked for, and only for arguments of
// the right size (ops/allman.h, ops/kiraly.h, raw_frame.h).
void check_allman_reply(const FrameView& request, const FrameView& reply) {
  int32_t n = 0;
  switch (static_cast<Proc>(request.proc)) {
    case Proc::kIsPrime:
      RPCLAB_FUZZ_CHECK(request.body.size() == 4 && reply.body.size() == 1, "ISPRIME answered a wrong argument");
      break;
    case Proc::kAverage:
      RPCLAB_FUZZ_CHECK(!request.body.empty() && request.body.size() % 8 == 0 && reply.body.size() == 8,
                        "AVERAGE answered a wrong argument, or not with one double");
      break;
    case Proc::kGetRandNums:
      RPCLAB_FUZZ_CHECK(raw::decode_i32(request.body, &n) && n >= 0 && reply.body.size() == size_t(n) * 8,
                        "GETRANDNUMS answered with another count");
      break;
    case Proc::kLogTransform:
      RPCLAB_FUZZ_CHECK(request.body.size() % 8 == 0 && reply.body.size() == request.body.size(),
                        "LOGTRANSFORM answered with another count");
      break;
    case Proc::kGetRecord: {
      // Kiraly's record, with the photo it asked for (ops/kiraly.h).
      int32_t id = 0;
      uint32_t photo_bytes = 0;
      KiralyRecord record;
      RPCLAB_FUZZ_CHECK(raw::decode_record_request(request.body, &id, &photo_bytes) &&
                            raw::decode_record(reply.body, &record) &&
                            kiraly_check(kiraly_record(id, photo_bytes), record).empty(),
                        "GETRECORD answered a wrong argument, or with another record");
      break;
    }
    default:
      break;
  }
}

void check_reply(const FrameView& request, const std::string& reply_bytes) {
  raw::FrameDecoder replies;
  replies.feed(reply_bytes);
  FrameView reply;
  RPCLAB_FUZZ_CHECK(replies.next(&reply) == DecodeResult::kFrame, "the reply is not a frame");
  RPCLAB_FUZZ_CHECK(replies.buffered() == 0, "bytes after the reply frame");
  RPCLAB_FUZZ_CHECK(reply.call_id == request.call_id, "the reply carries another call id");
  auto proc = static_cast<Proc>(request.proc);
  if (reply.proc == static_cast<uint8_t>(Proc::kError)) {
    RPCLAB_FUZZ_CHECK(proc != Proc::kNull && proc != Proc::kEcho, "NULL or ECHO refused");
    return;
  }
  RPCLAB_FUZZ_CHECK(reply.proc == request.proc, "the reply is for another procedure");
  if (proc == Proc::kEcho) RPCLAB_FUZZ_CHECK(reply.body == request.body, "ECHO reply differs");
  if (proc == Proc::kNext) {
    NextReply next;
    RPCLAB_FUZZ_CHECK(raw::decode_next_reply(reply.body, &next), "NEXT reply does not decode");
  }
  check_allman_reply(request, reply);
}

// Drains every whole frame the decoder holds, serving each.
void drain(raw::FrameDecoder& decoder, Decoded* out) {
  FrameView frame;
  while ((out->last = decoder.next(&frame)) == DecodeResult::kFrame) {
    out->frames.push_back(flatten(frame));
    std::string reply;
    raw::serve_frame(core(), frame, &reply);
    check_reply(frame, reply);
  }
}

Decoded decode_in_pieces(std::string_view stream, const std::vector<size_t>& pieces) {
  raw::FrameDecoder decoder;
  Decoded out;
  size_t at = 0;
  for (size_t len : pieces) {
    len = std::min(len, stream.size() - at);
    decoder.feed(stream.substr(at, len));
    at += len;
    drain(decoder, &out);
    if (out.last == DecodeResult::kTooLong) return out;  // the server drops the connection here
  }
  decoder.feed(stream.substr(at));
  drain(decoder, &out);
  return out;
}

}  // namespace

int fuzz_raw_frame(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  if (in.empty()) return 0;
  size_t n = std::min<size_t>(static_cast<uint8_t>(in[0]) % 32, in.size() - 1);
  std::vector<size_t> pieces;
  for (size_t i = 1; i <= n; ++i) pieces.push_back(static_cast<uint8_t>(in[i]));
  std::string_view stream = in.substr(1 + n);

  Decoded split = decode_in_pieces(stream, pieces);
  Decoded whole = decode_in_pieces(stream, {});
  RPCLAB_FUZZ_CHECK(split.frames == whole.frames, "frames depend on how the stream was split");
  RPCLAB_FUZZ_CHECK(split.last == whole.last, "the final state depends on how the stream was split");

  FrameView datagram;
  if (raw::decode_datagram(stream, &datagram) == DecodeResult::kFrame) {
    RPCLAB_FUZZ_CHECK(flatten(datagram) == stream, "a datagram frame is not the whole datagram");
    std::string reply;
    raw::serve_frame(core(), datagram, &reply);
    check_reply(datagram, reply);
  }
  return 0;
}

}  // namespace rpclab::fuzz
