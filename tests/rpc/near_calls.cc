#include "near_calls.h"

#include <stdexcept>

#include "jsonrpc/base64.h"
#include "raw/raw_frame.h"
#include "support/wire.h"

namespace rpclab::test {
namespace {

std::string next_args(uint32_t client, uint32_t seq) { return be32(client) + be32(seq); }

// Sun RPC messages that are nearly calls NEXT would run. (A NEXT cut short
// is sent over TCP only: over UDP libtirpc runs it, see
// SunrpcUdp.DecodesPastTheEndOfAShortDatagram.)
std::vector<std::string> near_sunrpc_calls(bool datagram) {
  std::vector<std::string> calls = {
      rpc_call(2, kProgram, 1, 2, be32(0xffffffff)),                       // ECHO claiming 4 GiB
      rpc_call(3, kProgram, 1, 2, be32(20) + "abcd"),                      // ECHO shorter than it says
      rpc_call(4, kProgram, 2, 1, next_args(kRogueClient, 0)),             // a version we do not serve
      rpc_call(5, kProgram + 1, 1, 1, next_args(kRogueClient, 0)),         // another program
      rpc_call(6, kProgram, 1, 99, next_args(kRogueClient, 0)),            // no such procedure
      rpc_call(7, kProgram, 1, 1, next_args(kRogueClient, 0), 3),          // RPC version 3
      be32(8) + be32(1) + be32(0) + be32(0) + be32(0) + be32(0),           // a REPLY, not a call
      "", "\x80",
  };
  if (!datagram) calls.push_back(rpc_call(1, kProgram, 1, 1, be32(kRogueClient)));
  return calls;
}

std::vector<std::string> near_sunrpc_tcp_calls() {
  std::vector<std::string> calls;
  for (const std::string& c : near_sunrpc_calls(false)) calls.push_back(c);
  calls.push_back(be32(0x7fffffff) + "junk");                       // a record far past the bound
  calls.push_back(be32(64) + rpc_call(9, kProgram, 1, 1, ""));     // a first fragment, then silence
  calls.push_back(record(rpc_call(10, kProgram, 1, 1, be32(1))));  // a whole record of a short NEXT
  return calls;
}

// Floor frames that are nearly calls NEXT would run.
std::vector<std::string> near_raw_frames() {
  using namespace raw;
  auto header = [](uint32_t length, uint8_t proc) {
    return be32(length) + be32(1) + std::string(1, static_cast<char>(proc));
  };
  return {
      header(7, 1) + next_args(kRogueClient, 0).substr(0, 7),       // NEXT body cut short
      header(100, 1) + next_args(kRogueClient, 0),                   // length says more than follows
      header(4, 1) + next_args(kRogueClient, 0),                     // length says less
      header(8, 9) + next_args(kRogueClient, 0),                     // no such procedure
      header(8, 0xff) + next_args(kRogueClient, 0),                  // ERROR sent as a request
      header(0xffffffff, 2),                                         // 4 GiB claimed
      header(kMaxBody + 1, 2) + "x",                                 // just past the bound
      "", "\0\0\0",
  };
}

std::vector<std::string> near_grpc() {
  return {"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + std::string(9, '\xff'), "GET / HTTP/1.1\r\nHost: x\r\n\r\n",
          std::string("\0\0\0\4\0\0\0\0\0", 9)};
}

std::string post(const std::string& path, const std::string& type, const std::string& body) {
  return "POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: " + type +
         "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

std::string xml_call(const std::string& method, const std::string& params) {
  return "<?xml version=\"1.0\"?><methodCall><methodName>" + method + "</methodName><params>" + params +
         "</params></methodCall>";
}

std::string i4(const std::string& v) { return "<param><value><i4>" + v + "</i4></value></param>"; }

// XML-RPC documents that are nearly a NEXT xmlrpc-c would run.
std::vector<std::string> near_xml_calls() {
  const std::string rogue = std::to_string(kRogueClient);
  return {
      xml_call("rpclab.next", i4(rogue)),                                              // a parameter missing
      xml_call("rpclab.next", i4(rogue) + i4("0") + i4("1")),                          // one too many
      xml_call("rpclab.next", "<param><value><string>" + rogue + "</string></value></param>" + i4("0")),  // a string id
      xml_call("rpclab.next", i4(rogue) + i4("4294967296")),                           // past i4
      xml_call("rpclab.Next", i4(rogue) + i4("0")),                                    // no such method
      xml_call("rpclab.next", i4(rogue) + i4("0")).substr(0, 150),                     // cut short
      "<?xml version=\"1.0\"?><methodResponse><params>" + i4(rogue) + "</params></methodResponse>",  // a response
      "<?xml version=\"1.0\"?><!DOCTYPE m [<!ENTITY x SYSTEM \"file:///etc/passwd\">]><methodCall><methodName>"
      "rpclab.echo</methodName><params><param><value><base64>&x;</base64></value></param></params></methodCall>",
      "", "<",
  };
}

std::vector<std::string> near_xmlrpc_http() {
  std::vector<std::string> out;
  for (const std::string& doc : near_xml_calls()) out.push_back(post("/RPC2", "text/xml", doc));
  std::string valid = xml_call("rpclab.next", i4(std::to_string(kRogueClient)) + i4("0"));
  out.push_back(post("/RPC3", "text/xml", valid));                                    // another path
  out.push_back("GET /RPC2 HTTP/1.1\r\nHost: x\r\n\r\n");                             // not a POST
  out.push_back(post("/RPC2", "text/xml", valid).substr(0, 100));                     // headers cut short
  out.push_back("POST /RPC2 HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999\r\n\r\n" + valid);
  return out;
}

std::string packet(const std::string& bytes) { return "\x1bPKT" + bytes + "\x1b" "END"; }

std::vector<std::string> near_xmlrpc_packets() {
  std::vector<std::string> out;
  for (const std::string& doc : near_xml_calls()) out.push_back(packet(doc));
  std::string valid = xml_call("rpclab.next", i4(std::to_string(kRogueClient)) + i4("0"));
  out.push_back("\x1bPKT" + valid);                       // no end
  out.push_back(valid);                                   // no framing at all
  out.push_back("\x1bPKT" + valid + "\x1bQQQ");           // a control word that does not exist
  out.push_back("\x1b" "END" + packet(valid).substr(4));  // the end before the start
  return out;
}

std::string json_call(const std::string& method, const std::string& params, const std::string& id = "1") {
  return "{\"jsonrpc\":\"2.0\",\"method\":\"" + method + "\",\"params\":" + params + ",\"id\":" + id + "}";
}

// JSON-RPC requests that are nearly a NEXT libjson-rpc-cpp would run.
std::vector<std::string> near_jsonrpc() {
  const std::string rogue = std::to_string(kRogueClient);
  std::vector<std::string> bodies = {
      json_call("next", "{\"client_id\":" + rogue + "}"),                          // seq missing
      json_call("next", "{\"client_id\":\"" + rogue + "\",\"seq\":0}"),            // a string id
      json_call("next", "{\"client_id\":" + rogue + ",\"seq\":-1}"),               // negative
      json_call("next", "{\"client_id\":" + rogue + ",\"seq\":4294967296}"),       // past 32 bits
      json_call("next", "{\"client_id\":" + rogue + ",\"seq\":0.5}"),              // not an integer
      json_call("next", "[" + rogue + ",0]"),                                      // by position
      json_call("Next", "{\"client_id\":" + rogue + ",\"seq\":0}"),                // no such method
      "{\"jsonrpc\":\"2.0\",\"method\":\"next\",\"params\":{\"client_id\":" + rogue + ",\"seq\":0}}",  // a notification
      json_call("next", "{\"client_id\":" + rogue + ",\"seq\":0}").substr(0, 40),  // cut short
      json_call("echo", "{\"payload\":\"QQ=Q\"}"),                                 // not base64
      std::string(3000, '[') + std::string(3000, ']'),                             // past jsoncpp's nesting limit
      "", "{",
  };
  std::vector<std::string> out;
  for (const std::string& body : bodies) out.push_back(post("/", "application/json", body));
  out.push_back(post("/rpc", "application/json", json_call("next", "{\"client_id\":" + rogue + ",\"seq\":0}")));
  out.push_back("PUT / HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}");
  return out;
}

std::string sunrpc_big_echo(size_t size) {
  return record(rpc_call(77, kProgram, 1, 2, xdr_opaque(std::string(size, 'v'))));
}

std::string raw_big_echo(size_t size) { return raw::encode_frame(77, raw::Proc::kEcho, std::string(size, 'v')); }

std::string xml_big_echo(size_t size) {
  return xml_call("rpclab.echo", "<param><value><base64>" + jsonrpc::base64_encode(std::string(size, 'v')) +
                                     "</base64></value></param>");
}

std::string xmlrpc_big_echo(size_t size) { return post("/RPC2", "text/xml", xml_big_echo(size)); }
std::string pstream_big_echo(size_t size) { return packet(xml_big_echo(size)); }

std::string jsonrpc_big_echo(size_t size) {
  return post("/", "application/json",
              json_call("echo", "{\"payload\":\"" + jsonrpc::base64_encode(std::string(size, 'v')) + "\"}"));
}

}  // namespace

const std::vector<WireFixture>& wire_fixtures() {
  static const std::vector<WireFixture> table = {
      {"sunrpc-udp", [] { return near_sunrpc_calls(true); }, nullptr, false},
      {"sunrpc-tcp", near_sunrpc_tcp_calls, sunrpc_big_echo, true},
      {"grpc", near_grpc, nullptr, false},
      {"grpc-callback-server", near_grpc, nullptr, false},
      {"grpc-callback", near_grpc, nullptr, false},
      {"xmlrpc", near_xmlrpc_http, xmlrpc_big_echo, false},
      {"xmlrpc-pstream", near_xmlrpc_packets, pstream_big_echo, false},
      {"jsonrpc", near_jsonrpc, jsonrpc_big_echo, false},
      {"raw-udp", near_raw_frames, nullptr, false},
      {"raw-tcp", near_raw_frames, raw_big_echo, false},
  };
  return table;
}

const WireFixture& wire_fixture(const std::string& transport) {
  for (const WireFixture& f : wire_fixtures())
    if (f.transport == transport) return f;
  throw std::invalid_argument("tests/rpc/near_calls.cc has no row for transport '" + transport +
                              "': add the near-calls the garbage tests send it");
}

}  // namespace rpclab::test
