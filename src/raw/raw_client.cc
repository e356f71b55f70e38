#include "raw/raw_client.h"

#include <algorithm>

#include <unistd.h>

#include "raw/raw_transport.h"
#include "transport/client_handlers.h"

namespace rpclab::raw {
namespace {

std::string proc_name(uint8_t proc) {
  switch (static_cast<Proc>(proc)) {
    case Proc::kNull: return "NULL";
    case Proc::kNext: return "NEXT";
    case Proc::kEcho: return "ECHO";
    case Proc::kIsPrime: return "ISPRIME";
    case Proc::kAverage: return "AVERAGE";
    case Proc::kGetRandNums: return "GETRANDNUMS";
    case Proc::kLogTransform: return "LOGTRANSFORM";
    case Proc::kGetRecord: return "GETRECORD";
    case Proc::kError: return "ERROR";
  }
  return "procedure " + std::to_string(proc);
}

}  // namespace

RawClient::RawClient(int fd, const ClientOptions& options, size_t max_payload)
    : fd_(fd), timeout_ms_(options.timeout_ms.value_or(kDefaultTimeoutMs)), max_payload_(max_payload) {}

RawClient::~RawClient() { ::close(fd_); }

CallStatus RawClient::call_proc(Proc proc, std::string_view body, FrameView* reply) {
  uint32_t call_id = next_call_id_++;
  CallStatus status = exchange(call_id, proc, body, Deadline(timeout_ms_), reply);
  if (!status.ok()) return status;
  if (reply->proc == static_cast<uint8_t>(Proc::kError))
    return CallStatus::failure(ErrorKind::kCannotCode, "server refused the call: " + std::string(reply->body));
  if (reply->proc != static_cast<uint8_t>(proc))
    return CallStatus::failure(ErrorKind::kCannotCode, "a " + proc_name(reply->proc) + " reply came back to a " +
                                                           proc_name(static_cast<uint8_t>(proc)) + " call");
  return status;
}

CallStatus RawClient::send_request(uint32_t call_id, Proc proc, std::string_view body, const Deadline& deadline) {
  auto header = encode_header(call_id, proc, body.size());
  if (int err = send_all(fd_, {header.data(), header.size()}, body, deadline))
    return io_failure(ErrorKind::kCannotSend, "cannot send the request", err);
  return CallStatus::success();
}

CallStatus RawClient::null_call(const Empty&, Empty*) {
  FrameView reply;
  return call_proc(Proc::kNull, {}, &reply);
}

CallStatus RawClient::next(const NextRequest& request, NextReply* reply) {
  FrameView frame;
  CallStatus status = call_proc(Proc::kNext, encode_next_request(request.client_id, request.seq), &frame);
  if (status.ok() && !decode_next_reply(frame.body, reply))
    return CallStatus::failure(ErrorKind::kCannotCode, "NEXT reply body of " + std::to_string(frame.body.size()) +
                                                           " bytes is not a NEXT reply");
  return status;
}

CallStatus RawClient::echo(const std::string& payload, std::string* reply) {
  if (payload.size() > max_payload_) return CallStatus::failure(ErrorKind::kCannotCode, too_big(payload.size()));
  FrameView frame;
  CallStatus status = call_proc(Proc::kEcho, payload, &frame);
  if (status.ok()) reply->assign(frame.body);
  return status;
}

CallStatus RawClient::call_doubles(Proc proc, std::string_view body, size_t reply_bytes, std::vector<double>* out) {
  size_t larger = std::max(body.size(), reply_bytes);
  if (larger > max_payload_) return CallStatus::failure(ErrorKind::kCannotCode, too_big(larger));
  FrameView frame;
  CallStatus status = call_proc(proc, body, &frame);
  if (status.ok() && !decode_doubles(frame.body, out))
    return CallStatus::failure(ErrorKind::kCannotCode, "a " + proc_name(static_cast<uint8_t>(proc)) + " reply of " +
                                                           std::to_string(frame.body.size()) + " bytes is not doubles");
  return status;
}

CallStatus RawClient::is_prime(int32_t n, bool* prime) {
  FrameView frame;
  CallStatus status = call_proc(Proc::kIsPrime, encode_i32(n), &frame);
  if (status.ok() && frame.body.size() != 1)
    return CallStatus::failure(ErrorKind::kCannotCode, "ISPRIME reply of " + std::to_string(frame.body.size()) +
                                                           " bytes, not 1");
  if (status.ok()) *prime = frame.body[0] != 0;
  return status;
}

CallStatus RawClient::average(const std::vector<double>& values, double* mean) {
  std::vector<double> reply;
  CallStatus status = call_doubles(Proc::kAverage, encode_doubles(values.data(), values.size()), 8, &reply);
  if (status.ok() && reply.size() != 1)
    return CallStatus::failure(ErrorKind::kCannotCode, "AVERAGE reply of " + std::to_string(reply.size()) + " doubles");
  if (status.ok()) *mean = reply[0];
  return status;
}

CallStatus RawClient::get_rand_nums(int32_t count, std::vector<double>* values) {
  return call_doubles(Proc::kGetRandNums, encode_i32(count), count > 0 ? size_t(count) * 8 : 0, values);
}

CallStatus RawClient::log_transform(const std::vector<double>& values, std::vector<double>* logs) {
  return call_doubles(Proc::kLogTransform, encode_doubles(values.data(), values.size()), values.size() * 8, logs);
}

CallStatus RawClient::get_record(const RecordRequest& request, KiralyRecord* record) {
  size_t reply_bytes = size_t{request.photo_bytes} + kKiralyFieldBytes;
  if (reply_bytes > max_payload_) return CallStatus::failure(ErrorKind::kCannotCode, too_big(reply_bytes));
  FrameView frame;
  CallStatus status = call_proc(Proc::kGetRecord, encode_record_request(request.id, request.photo_bytes), &frame);
  if (status.ok() && !decode_record(frame.body, record))
    return CallStatus::failure(ErrorKind::kCannotCode, "a GETRECORD reply of " + std::to_string(frame.body.size()) +
                                                           " bytes is not a record");
  return status;
}

namespace {

constexpr ClientHandler<RawClient> kHandlers[] = {
    {Operation::kNull, handle<&RawClient::null_call>},
    {Operation::kNext, handle<&RawClient::next>},
    {Operation::kEcho, handle<&RawClient::echo>},
    {Operation::kIsPrime, handle<&RawClient::is_prime>},
    {Operation::kAverage, handle<&RawClient::average>},
    {Operation::kGetRandNums, handle<&RawClient::get_rand_nums>},
    {Operation::kLogTransform, handle<&RawClient::log_transform>},
    {Operation::kGetRecord, handle<&RawClient::get_record>},
};
static_assert(operations_of(kHandlers) == kClientOperations, "the row's operations are its handlers'");

}  // namespace

CallStatus RawClient::call(Operation op, const OpArgs& args, OpReply* reply) {
  return dispatch(kHandlers, *this, op, args, reply);
}

}  // namespace rpclab::raw
