// Any client can call rpclab's XML-RPC and JSON-RPC servers: the real curl
// binary posts hand-written requests, as in docs/architecture.md ("Wire
// names"), and the answers are read as text. The ledger then holds what
// curl's NEXT did, and nothing else.
#include <gtest/gtest.h>

#include <string>

#include "support/process.h"
#include "support/server_process.h"

namespace rpclab::test {
namespace {

ProcessResult curl_post(const std::string& url, const std::string& type, const std::string& body) {
  return run_program({"curl", "--silent", "--show-error", "--max-time", "10", "-H", "Content-Type: " + type,
                      "--data-binary", body, url});
}

std::string xml_call(const std::string& method, const std::string& params) {
  return "<?xml version=\"1.0\"?>\n<methodCall><methodName>" + method + "</methodName><params>" + params +
         "</params></methodCall>";
}

// Whitespace out, so a test reads the same whatever line breaks the server writes.
std::string squeezed(const std::string& text) {
  std::string out;
  for (char c : text)
    if (c != ' ' && c != '\n' && c != '\r' && c != '\t') out += c;
  return out;
}

TEST(CurlInterop, XmlRpcMethodCallsGetTheirAnswers) {
  ServerProcess server("xmlrpc");
  std::string url = "http://" + server.address() + "/RPC2";

  ProcessResult next = curl_post(url, "text/xml",
                                 xml_call("rpclab.next", "<param><value><i4>7</i4></value></param>"
                                                         "<param><value><i4>0</i4></value></param>"));
  ASSERT_EQ(next.exit_code, 0) << next.err;
  std::string reply = squeezed(next.out);
  EXPECT_NE(reply.find("<methodResponse>"), std::string::npos) << next.out;
  EXPECT_NE(reply.find("<member><name>status</name><value><i4>0</i4></value></member>"), std::string::npos)
      << next.out;
  EXPECT_NE(reply.find("<member><name>expected_seq</name><value><i4>0</i4></value></member>"), std::string::npos)
      << next.out;
  EXPECT_NE(reply.find("<member><name>times_executed</name><value><i4>1</i4></value></member>"), std::string::npos)
      << next.out;

  ProcessResult echo = curl_post(url, "text/xml", xml_call("rpclab.echo", "<param><value><base64>aGVsbG8gcnBjbGFi"
                                                                          "</base64></value></param>"));
  ASSERT_EQ(echo.exit_code, 0) << echo.err;
  EXPECT_NE(squeezed(echo.out).find("<base64>aGVsbG8gcnBjbGFi</base64>"), std::string::npos) << echo.out;

  ProcessResult null = curl_post(url, "text/xml", xml_call("rpclab.null", ""));
  ASSERT_EQ(null.exit_code, 0) << null.err;
  EXPECT_NE(squeezed(null.out).find("<params><param><value><i4>0</i4></value></param></params>"), std::string::npos)
      << null.out;

  ProcessResult wrong = curl_post(url, "text/xml", xml_call("rpclab.next", ""));
  EXPECT_NE(squeezed(wrong.out).find("<fault>"), std::string::npos) << wrong.out;

  Ledger ledger = server.stop();
  EXPECT_EQ(ledger.clients().size(), 1u);
  EXPECT_EQ(ledger.count(7, 0), 1u);
}

TEST(CurlInterop, JsonRpcRequestsGetTheirAnswers) {
  ServerProcess server("jsonrpc");
  std::string url = "http://" + server.address() + "/";

  ProcessResult next = curl_post(
      url, "application/json", R"({"jsonrpc":"2.0","method":"next","params":{"client_id":7,"seq":0},"id":1})");
  ASSERT_EQ(next.exit_code, 0) << next.err;
  std::string reply = squeezed(next.out);
  EXPECT_NE(reply.find("\"jsonrpc\":\"2.0\""), std::string::npos) << next.out;
  EXPECT_NE(reply.find("\"id\":1"), std::string::npos) << next.out;
  for (const char* member : {"\"status\":0", "\"expected_seq\":0", "\"times_executed\":1"})
    EXPECT_NE(reply.find(member), std::string::npos) << member << " in " << next.out;

  ProcessResult echo = curl_post(url, "application/json",
                                 R"({"jsonrpc":"2.0","method":"echo","params":{"payload":"aGVsbG8gcnBjbGFi"},"id":2})");
  ASSERT_EQ(echo.exit_code, 0) << echo.err;
  EXPECT_NE(squeezed(echo.out).find("\"result\":{\"payload\":\"aGVsbG8gcnBjbGFi\"}"), std::string::npos) << echo.out;

  ProcessResult null = curl_post(url, "application/json", R"({"jsonrpc":"2.0","method":"null","id":3})");
  ASSERT_EQ(null.exit_code, 0) << null.err;
  EXPECT_NE(squeezed(null.out).find("\"result\":null"), std::string::npos) << null.out;

  ProcessResult wrong = curl_post(url, "application/json",
                                  R"({"jsonrpc":"2.0","method":"next","params":{"client_id":-7,"seq":0},"id":4})");
  EXPECT_NE(squeezed(wrong.out).find("\"code\":-32602"), std::string::npos) << wrong.out;

  Ledger ledger = server.stop();
  EXPECT_EQ(ledger.clients().size(), 1u);
  EXPECT_EQ(ledger.count(7, 0), 1u);
}

}  // namespace
}  // namespace rpclab::test
