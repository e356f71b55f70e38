// The part of a floor client that is the same over TCP and UDP: call ids,
// encoding each operation's procedure and checking what comes back. A subclass
// only moves one request out and the matching reply in.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "transport/transport.h"
#include "raw/raw_frame.h"
#include "raw/raw_io.h"

namespace rpclab::raw {

class RawClient : public RpcClient {
 public:
  RawClient(int fd, const ClientOptions& options, size_t max_payload);
  ~RawClient() override;

  CallStatus call(Operation op, const OpArgs& args, OpReply* reply) override;

  // The handlers of the operations it carries (its table in the .cc).
  CallStatus null_call(const Empty&, Empty*);
  CallStatus next(const NextRequest& request, NextReply* reply);
  CallStatus echo(const std::string& payload, std::string* reply);
  CallStatus is_prime(int32_t n, bool* prime);
  CallStatus average(const std::vector<double>& values, double* mean);
  CallStatus get_rand_nums(int32_t count, std::vector<double>* values);
  CallStatus log_transform(const std::vector<double>& values, std::vector<double>* logs);
  CallStatus get_record(const RecordRequest& request, KiralyRecord* record);

 protected:
  // Sends the request and waits for the reply frame carrying `call_id`,
  // skipping any other (a late reply to a call that timed out). `reply`
  // may point into the subclass's buffer until its next exchange.
  virtual CallStatus exchange(uint32_t call_id, Proc proc, std::string_view body, const Deadline& deadline,
                              FrameView* reply) = 0;
  // The error for a payload over max_payload, in the transport's words.
  virtual std::string too_big(size_t size) const = 0;
  // Header and body in one sendmsg where the socket takes them at once.
  CallStatus send_request(uint32_t call_id, Proc proc, std::string_view body, const Deadline& deadline);

  int fd_;

 private:
  CallStatus call_proc(Proc proc, std::string_view body, FrameView* reply);
  // A call whose reply body is doubles; `reply_bytes` is what it will be.
  CallStatus call_doubles(Proc proc, std::string_view body, size_t reply_bytes, std::vector<double>* out);

  int timeout_ms_;
  size_t max_payload_;
  uint32_t next_call_id_ = 1;
};

}  // namespace rpclab::raw
