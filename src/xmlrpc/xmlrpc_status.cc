#include "xmlrpc/xmlrpc_status.h"

#include <xmlrpc-c/util.h>

#include <initializer_list>
#include <utility>

namespace rpclab::xmlrpc {
namespace {

bool has(const std::string& text, const char* words) { return text.find(words) != std::string::npos; }

// curl's error-buffer texts (and curl_easy_strerror's, which xmlrpc-c
// uses when the buffer is empty), first match wins. A connect that timed
// out is a timeout, as for the floor's clients.
ErrorKind kind_of_network_error(const std::string& text) {
  static const std::initializer_list<std::pair<const char*, ErrorKind>> kWords = {
      {"Failed to connect", ErrorKind::kUnavailable},
      {"Couldn't connect", ErrorKind::kUnavailable},
      {"timed out", ErrorKind::kTimeout},
      {"Timeout was reached", ErrorKind::kTimeout},
      {"Send failure", ErrorKind::kCannotSend},
      {"Failed sending data", ErrorKind::kCannotSend},
      {"Recv failure", ErrorKind::kCannotReceive},
      {"Empty reply", ErrorKind::kCannotReceive},
      {"Failure when receiving", ErrorKind::kCannotReceive},
      {"Server returned nothing", ErrorKind::kCannotReceive},
      {"transfer closed", ErrorKind::kCannotReceive},
  };
  for (const auto& [words, kind] : kWords)
    if (has(text, words)) return kind;
  return ErrorKind::kOther;
}

}  // namespace

CallStatus from_client_error(const std::string& what) {
  ErrorKind kind;
  if (has(what, "libcurl failed to execute"))
    kind = kind_of_network_error(what);
  else if (has(what, "HTTP response code is"))
    kind = has(what, "code is 4") ? ErrorKind::kCannotCode : ErrorKind::kOther;  // 4xx: the request was refused
  else if (has(what, "not an XML-RPC server"))
    kind = ErrorKind::kCannotReceive;  // no HTTP reply: the peer closed or sent garbage
  else if (has(what, "Failed to write the call"))
    kind = ErrorKind::kCannotSend;  // packet stream
  else if (has(what, "closed the socket before sending") || has(what, "couldn't get the response"))
    kind = ErrorKind::kCannotReceive;
  else if (has(what, "no element found"))
    // An empty body: curl 7.88 ends a transfer without error when the
    // connection closes inside the headers (a server killed between Abyss's
    // header writes), so nothing of the reply arrived to be decoded.
    kind = ErrorKind::kCannotReceive;
  else
    kind = ErrorKind::kCannotCode;  // what is left is the response's XML
  return CallStatus::failure(kind, "xmlrpc-c: " + what);
}

CallStatus from_fault(int code, const std::string& description) {
  ErrorKind kind = ErrorKind::kOther;
  switch (code) {
    case XMLRPC_TYPE_ERROR:
    case XMLRPC_INDEX_ERROR:
    case XMLRPC_PARSE_ERROR:
    case XMLRPC_LIMIT_EXCEEDED_ERROR:
    case XMLRPC_INVALID_UTF8_ERROR: kind = ErrorKind::kCannotCode; break;
    case XMLRPC_NO_SUCH_METHOD_ERROR: kind = ErrorKind::kUnavailable; break;
    default: break;
  }
  return CallStatus::failure(kind, "XML-RPC fault " + std::to_string(code) + ": " + description);
}

}  // namespace rpclab::xmlrpc
