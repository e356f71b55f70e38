// The new adapters' error mappings on the one ErrorKind enum, fed what the
// libraries really say: xmlrpc-c's texts around curl 7.88's error buffer
// (captured from failed calls), libjson-rpc-cpp's exception codes; and the
// base64 that carries JSON-RPC's ECHO.
#include <gtest/gtest.h>

#include "jsonrpc/base64.h"
#include "jsonrpc/jsonrpc_status.h"
#include "xmlrpc/xmlrpc_status.h"

namespace rpclab::test {
namespace {

TEST(XmlrpcStatus, CurlsWordsMapOntoErrorKinds) {
  const std::pair<const char*, ErrorKind> cases[] = {
      {"libcurl failed to execute the HTTP POST transaction, explaining:  Failed to connect to 127.0.0.1 port 9 "
       "after 0 ms: Couldn't connect to server", ErrorKind::kUnavailable},
      {"libcurl failed to execute the HTTP POST transaction, explaining:  Operation timed out after 1000 "
       "milliseconds with 0 bytes received", ErrorKind::kTimeout},
      {"libcurl failed to execute the HTTP POST transaction, explaining:  Connection timed out after 1001 "
       "milliseconds", ErrorKind::kTimeout},
      {"libcurl failed to execute the HTTP POST transaction, explaining:  Recv failure: Connection reset by peer",
       ErrorKind::kCannotReceive},
      {"libcurl failed to execute the HTTP POST transaction, explaining:  Empty reply from server",
       ErrorKind::kCannotReceive},
      {"libcurl failed to execute the HTTP POST transaction, explaining:  Send failure: Broken pipe",
       ErrorKind::kCannotSend},
      {"HTTP response code is 413, not 200", ErrorKind::kCannotCode},
      {"HTTP response code is 500, not 200", ErrorKind::kOther},
      {"Failed to write the call to the packet socket.  write() of socket failed", ErrorKind::kCannotSend},
      {"The other end closed the socket before sending the response.", ErrorKind::kCannotReceive},
      {"Unable to find XML-RPC response in what server sent back.", ErrorKind::kCannotCode},
      // A server killed after "HTTP/1.1 200 OK" and its Content-type line
      // (seen with strace in RetryPolicyE2E's crash test): curl returns ok
      // with an empty body.
      {"Response XML from server is not valid XML-RPC response.  Unable to find XML-RPC response in what server "
       "sent back.  Not valid XML.  no element found", ErrorKind::kCannotReceive},
      {"Response XML from server is not valid XML-RPC response.  Unable to find XML-RPC response in what server "
       "sent back.  Not valid XML.  mismatched tag", ErrorKind::kCannotCode},
  };
  for (const auto& [text, kind] : cases) {
    CallStatus s = xmlrpc::from_client_error(text);
    EXPECT_EQ(s.kind, kind) << text;
    EXPECT_NE(s.detail.find(text), std::string::npos);
  }
  EXPECT_EQ(xmlrpc::from_fault(-501, "type error").kind, ErrorKind::kCannotCode);
  EXPECT_EQ(xmlrpc::from_fault(-506, "no such method").kind, ErrorKind::kUnavailable);
  EXPECT_EQ(xmlrpc::from_fault(-500, "internal").kind, ErrorKind::kOther);
}

TEST(JsonrpcStatus, ConnectorCodesAndErrorObjectsMapOntoErrorKinds) {
  EXPECT_EQ(jsonrpc::from_exception(-32003, "libcurl error: 28 -> Operation timed out").kind, ErrorKind::kTimeout);
  EXPECT_EQ(jsonrpc::from_exception(-32003, "libcurl error: 7 -> Could not connect to http://x/").kind,
            ErrorKind::kUnavailable);
  EXPECT_EQ(jsonrpc::from_exception(-32003, "libcurl error: 56").kind, ErrorKind::kCannotReceive);
  EXPECT_EQ(jsonrpc::from_exception(-32003, "libcurl error: 55").kind, ErrorKind::kCannotSend);
  EXPECT_EQ(jsonrpc::from_exception(-32602, "Invalid params").kind, ErrorKind::kCannotCode);
  EXPECT_EQ(jsonrpc::from_exception(-32601, "Method not found").kind, ErrorKind::kUnavailable);
  EXPECT_EQ(jsonrpc::from_exception(-32603, "request body over 24 MiB").kind, ErrorKind::kOther);
}

TEST(Base64, RoundTripsEveryLengthAndRefusesWhatIsNotCanonical) {
  for (size_t n = 0; n < 70; ++n) {
    std::string bytes(n, '\0');
    for (size_t i = 0; i < n; ++i) bytes[i] = static_cast<char>(i * 37 + n);
    std::string text = jsonrpc::base64_encode(bytes);
    EXPECT_EQ(text.size(), 4 * ((n + 2) / 3));
    auto back = jsonrpc::base64_decode(text);
    ASSERT_TRUE(back) << n;
    EXPECT_EQ(*back, bytes);
  }
  EXPECT_EQ(jsonrpc::base64_encode("hello rpclab"), "aGVsbG8gcnBjbGFi");
  EXPECT_EQ(jsonrpc::base64_decode(""), std::string());
  for (const char* bad : {"QQ=Q", "QQ", "Q===", "QR==", "aGVs\nbG8=", " aGVs", "aGVs!", "===="})
    EXPECT_FALSE(jsonrpc::base64_decode(bad)) << bad;
}

}  // namespace
}  // namespace rpclab::test
