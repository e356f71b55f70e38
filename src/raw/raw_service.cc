#include "raw/raw_service.h"

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
      NextReply reply = core.next(client_id, seq, origin);
      return append_reply(request.call_id, Proc::kNext, encode_next_reply(reply), out);
    }
    case Proc::kEcho:
      core.count_echo();
      return append_reply(request.call_id, Proc::kEcho, request.body, out);
    case Proc::kError:
      break;
  }
  append_reply(request.call_id, Proc::kError, refusal(request), out);
}

}  // namespace rpclab::raw
