#include "raw/raw_service.h"
#include "server/server_core.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace rpclab::raw {
namespace {

void append_reply(uint32_t call_id, Proc proc, std::string_view body, std::string* out) {
  auto header = encode_header(call_id, proc, body.size());
  out->append(header.data(), header.size());
  out->append(body);
}

std::string refusal(const FrameView& request) {
  if (static_cast<Proc>(request.proc) == Proc::kNext)
    return "NEXT body must be " + std::to_string(kNextRequestBytes) + " bytes, got " +
           std::to_string(request.body.size());
  return "unknown procedure " + std::to_string(request.proc);
}

// Allman's operations and Kiraly's GetRecord: the reply body, or why the request was refused (a
// body of the wrong size, or values the core refuses).
std::optional<std::string> allman(ServerCore& core, const FrameView& request, std::string* body) {
  int32_t n = 0;
  std::vector<double> in, out;
  switch (static_cast<Proc>(request.proc)) {
    case Proc::kIsPrime:
      if (!decode_i32(request.body, &n)) break;
      *body = std::string(1, core.is_prime(n) ? 1 : 0);
      return std::nullopt;
    case Proc::kAverage: {
      if (!decode_doubles(request.body, &in)) break;
      double mean = 0;
      if (auto why = core.average(in.data(), in.size(), &mean)) return why;
      *body = encode_doubles(&mean, 1);
      return std::nullopt;
    }
    case Proc::kGetRandNums:
      if (!decode_i32(request.body, &n)) break;
      if (auto why = core.get_rand_nums(n, &out)) return why;
      *body = encode_doubles(out.data(), out.size());
      return std::nullopt;
    case Proc::kLogTransform:
      if (!decode_doubles(request.body, &in)) break;
      if (auto why = core.log_transform(in.data(), in.size(), &out)) return why;
      *body = encode_doubles(out.data(), out.size());
      return std::nullopt;
    case Proc::kGetRecord: {
      uint32_t photo_bytes = 0;
      std::shared_ptr<const KiralyRecord> record;
      if (!decode_record_request(request.body, &n, &photo_bytes)) break;
      if (auto why = core.get_record(n, photo_bytes, &record)) return why;
      *body = encode_record(*record);
      return std::nullopt;
    }
    default:
      return refusal(request);
  }
  return "the body of " + std::to_string(request.body.size()) + " bytes is not procedure " +
         std::to_string(request.proc) + "'s argument (an i32, doubles of 8 bytes each, or GETRECORD's two u32s)";
}

}  // namespace

void serve_frame(ServerCore& core, const FrameView& request, std::string* out, RequestOrigin origin) {
  switch (static_cast<Proc>(request.proc)) {
    case Proc::kNull:
      core.count_null();
      return append_reply(request.call_id, Proc::kNull, {}, out);
    case Proc::kNext: {
      uint32_t client_id, seq;
      if (!decode_next_request(request.body, &client_id, &seq)) break;
      origin.set_request_id(request.call_id);
      NextReply reply;
      try {
        reply = core.next(client_id, seq, origin);
      } catch (const AtMostOnceUnavailable& e) {  // not run: the client sees a failure
        return append_reply(request.call_id, Proc::kError, e.what(), out);
      }
      return append_reply(request.call_id, Proc::kNext, encode_next_reply(reply), out);
    }
    case Proc::kEcho:
      core.count_echo();
      return append_reply(request.call_id, Proc::kEcho, request.body, out);
    case Proc::kIsPrime:
    case Proc::kAverage:
    case Proc::kGetRandNums:
    case Proc::kLogTransform:
    case Proc::kGetRecord: {
      std::string body;
      if (auto why = allman(core, request, &body)) return append_reply(request.call_id, Proc::kError, *why, out);
      return append_reply(request.call_id, static_cast<Proc>(request.proc), body, out);
    }
    case Proc::kError:
      break;
  }
  append_reply(request.call_id, Proc::kError, refusal(request), out);
}

}  // namespace rpclab::raw
