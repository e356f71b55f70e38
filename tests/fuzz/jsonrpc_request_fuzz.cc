// Target jsonrpc_request: one HTTP request body, as the jsonrpc server hands
// it to libjson-rpc-cpp (src/jsonrpc/jsonrpc_server.cc): Service::handle
// runs libjson-rpc-cpp's JSON-RPC 2.0 handler (jsoncpp's parser, request
// checks, dispatch) and rpclab's methods, which read the parameters' values
// (ranges, base64) and call ServerCore.
//
// handle() documents no failure: whatever the body, it returns the text to
// send back. That text is "" (notifications only) or JSON, and a NEXT or
// ECHO the core ran must have answered with its result. The same input is
// also given to the base64 decoder, whose output must encode back to it.
#include <json/json.h>

#include <string>

#include "server/server_core.h"
#include "fuzz_targets.h"
#include "jsonrpc/base64.h"
#include "jsonrpc/jsonrpc_service.h"
#include "jsonrpc/jsonrpc_wire.h"

namespace rpclab::fuzz {
namespace {

constexpr size_t kLedgerBytes = size_t{4} << 20;

void check_base64(const std::string& text) {
  std::optional<std::string> bytes = jsonrpc::base64_decode(text);
  if (bytes) RPCLAB_FUZZ_CHECK(jsonrpc::base64_encode(*bytes) == text, "base64 decoded but does not encode back");
  std::optional<std::string> again = jsonrpc::base64_decode(jsonrpc::base64_encode(text));
  RPCLAB_FUZZ_CHECK(again && *again == text, "base64 does not round-trip");
}

}  // namespace

int fuzz_jsonrpc_request(const uint8_t* data, size_t size) {
  static ServerCore core(kLedgerBytes);
  static jsonrpc::Service service(core);
  std::string body(reinterpret_cast<const char*>(data), size);
  check_base64(body);
  ServerCounters before = core.counters();
  std::string response = service.handle(body);
  ServerCounters after = core.counters();
  if (response.empty()) return 0;
  Json::Value reply;
  Json::CharReaderBuilder builder;
  std::string errors;
  std::unique_ptr<Json::CharReader> reader(builder.newCharReader());
  RPCLAB_FUZZ_CHECK(reader->parse(response.data(), response.data() + response.size(), &reply, &errors),
                    "the response is not JSON: " + errors);
  if (!reply.isObject()) return 0;  // a batch: one answer per request, checked as whole JSON only
  bool ran = after.next_calls != before.next_calls || after.echo_calls != before.echo_calls ||
             after.allman_calls != before.allman_calls || after.record_calls != before.record_calls;
  if (!ran) return 0;
  RPCLAB_FUZZ_CHECK(reply.isMember("result"), "a call the core ran did not answer with a result");
  if (after.next_calls != before.next_calls) {
    NextReply next;
    std::string why;
    RPCLAB_FUZZ_CHECK(jsonrpc::read_next_reply(reply["result"], &next, &why), why);
  }
  if (after.record_calls != before.record_calls) {
    KiralyRecord record;
    std::string why;
    RPCLAB_FUZZ_CHECK(jsonrpc::read_record(reply["result"], &record, &why), why);
  }
  return 0;
}

}  // namespace rpclab::fuzz
