// Forged requests of the text protocols: XML-RPC (xmlrpc-c's wire names,
// src/xmlrpc/xmlrpc_wire.h) over HTTP/1.1 and over xmlrpc-c's packet
// stream, and JSON-RPC 2.0 (src/jsonrpc/jsonrpc_wire.h) over HTTP/1.1.
#include <string>

#include "forge.h"
#include "jsonrpc/base64.h"

namespace rpclab::test {
namespace {

std::string value(const std::string& type, const std::string& text) {
  return "<value><" + type + ">" + text + "</" + type + "></value>";
}

std::string method_call(const std::string& method, const std::string& params) {
  return "<?xml version=\"1.0\"?><methodCall><methodName>" + method + "</methodName><params>" + params +
         "</params></methodCall>";
}

std::string param(const std::string& v) { return "<param>" + v + "</param>"; }

// An entity that expands ten times per level: 10^levels copies of "lol".
std::string entity_bomb(int levels) {
  std::string dtd = "<!DOCTYPE methodCall [<!ENTITY e0 \"lol\">";
  for (int i = 1; i <= levels; ++i) {
    dtd += "<!ENTITY e" + std::to_string(i) + " \"";
    for (int k = 0; k < 10; ++k) dtd += "&e" + std::to_string(i - 1) + ";";
    dtd += "\">";
  }
  return "<?xml version=\"1.0\"?>" + dtd + "]><methodCall><methodName>rpclab.echo</methodName><params>" +
         param(value("string", "&e" + std::to_string(levels) + ";")) + "</params></methodCall>";
}

std::string nested(const std::string& open, const std::string& close, int depth, const std::string& inner) {
  std::string s;
  for (int i = 0; i < depth; ++i) s += open;
  s += inner;
  for (int i = 0; i < depth; ++i) s += close;
  return s;
}

// The packet stream's framing: ESC "PKT", the bytes with ESC written as
// ESC "ESC", ESC "END".
std::string packet(const std::string& bytes) {
  std::string out = "\x1bPKT";
  for (char c : bytes) out += c == '\x1b' ? std::string("\x1b" "ESC") : std::string(1, c);
  return out + "\x1b" "END";
}

std::string json_call(const std::string& method, const std::string& params, const std::string& id = "1") {
  return "{\"jsonrpc\":\"2.0\",\"method\":\"" + method + "\",\"params\":" + params + ",\"id\":" + id + "}";
}

}  // namespace

std::string Forge::xmlrpc_call(std::string* kind) {
  std::string next = method_call("rpclab.next", param(value("i4", std::to_string(rogue_client()))) +
                                                    param(value("i4", std::to_string(rogue_seq()))));
  std::string echo = param(value("base64", jsonrpc::base64_encode(random_bytes(600))));
  std::string i4_7 = param(value("i4", "7")), i4_1 = param(value("i4", "1"));
  switch (below(12)) {
    case 0: *kind = "valid"; return next;
    case 1: *kind = "valid echo"; return method_call("rpclab.echo", echo);
    case 2: *kind = "unknown method"; return method_call(below(2) ? "rpclab.nope" : random_bytes(16), "");
    case 3:
      *kind = "wrong types";
      return method_call("rpclab.next", param(value(below(2) ? "string" : "double", "7")) + i4_1);
    case 4: *kind = "wrong count"; return method_call("rpclab.next", i4_7);
    case 5: *kind = "i4 out of range"; return method_call("rpclab.next", param(value("i4", "99999999999")) + i4_1);
    case 6:
      *kind = "deep nesting";
      return method_call("rpclab.echo", param(nested("<value><array><data>", "</data></array></value>", 500, "")));
    case 7: *kind = "entity expansion"; return entity_bomb(3 + below(3));
    case 8: *kind = "bad base64"; return method_call("rpclab.echo", param(value("base64", "%%%not" + random_bytes(8))));
    case 9: *kind = "truncated xml"; return next.substr(0, below(static_cast<uint32_t>(next.size())));
    case 10: *kind = "flipped bits"; flip_bits(&next); return next;
    default: *kind = "not xml"; return random_bytes(2000);
  }
}

std::string Forge::http_post(const std::string& path, const char* type, const std::string& body, std::string* kind) {
  auto head = [&](size_t length) {
    return "POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: " + type +
           "\r\nContent-Length: " + std::to_string(length) + "\r\n\r\n";
  };
  switch (below(8)) {
    case 0: *kind = "length short"; return head(below(static_cast<uint32_t>(body.size()) + 1)) + body;
    case 1: *kind = "length long"; return head(body.size() + 1 + below(5000)) + body;
    case 2: *kind = "huge length"; return head(below(2) ? 0xffffffffu : (40u << 20)) + body.substr(0, 100);
    case 3: { *kind = "flipped header bits"; std::string h = head(body.size()); flip_bits(&h); return h + body; }
    case 4: *kind = "GET"; return "GET " + path + " HTTP/1.1\r\nHost: x\r\n\r\n";
    case 5:
      *kind = "chunked junk";
      return "POST " + path + " HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n" + random_bytes(200);
    default: return head(body.size()) + body;
  }
}

std::string Forge::xmlrpc_http(std::string* kind) {
  std::string body = xmlrpc_call(kind);
  return http_post(below(8) ? "/RPC2" : "/" + random_bytes(8), "text/xml", body, kind);
}

std::string Forge::xmlrpc_http_next() {
  std::string kind, body = method_call("rpclab.next", param(value("i4", std::to_string(rogue_client()))) +
                                                         param(value("i4", std::to_string(rogue_seq()))));
  return "POST /RPC2 HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/xml\r\nContent-Length: " +
         std::to_string(body.size()) + "\r\n\r\n" + body;
}

std::string Forge::xmlrpc_http_partial() { return xmlrpc_http_next().substr(0, 120); }

std::string Forge::xmlrpc_packet(std::string* kind) {
  std::string call = xmlrpc_call(kind);
  switch (below(7)) {
    case 0: *kind = "no END"; return "\x1bPKT" + call;
    case 1: *kind = "bad escape"; return "\x1bPKT" + call.substr(0, call.size() / 2) + "\x1bXYZ" + call;
    case 2: *kind = "END first"; return "\x1b" "END" + packet(call);
    case 3: *kind = "bytes outside a packet"; return random_bytes(50) + packet(call);
    case 4: *kind = "NOPs and two packets"; return "\x1bNOP" + packet(call) + "\x1bNOP" + packet(xmlrpc_call(kind));
    case 5: { *kind = "flipped framing"; std::string p = packet(call); flip_bits(&p); return p; }
    default: return packet(call);
  }
}

std::string Forge::xmlrpc_packet_next() {
  return packet(method_call("rpclab.next", param(value("i4", std::to_string(rogue_client()))) +
                                               param(value("i4", std::to_string(rogue_seq())))));
}

std::string Forge::xmlrpc_packet_partial() { return xmlrpc_packet_next().substr(0, 80); }

std::string Forge::json_request(std::string* kind) {
  std::string ids =
      "{\"client_id\":" + std::to_string(rogue_client()) + ",\"seq\":" + std::to_string(rogue_seq()) + "}";
  std::string next = json_call("next", ids);
  std::string echo = "{\"payload\":\"" + jsonrpc::base64_encode(random_bytes(600)) + "\"}";
  static const char* kBadIds[] = {"\"7\"", "1.5", "-1", "4294967296", "null", "1e400", "[]"};
  std::string bad_id = std::string("{\"client_id\":") + kBadIds[below(7)] + ",\"seq\":1}";
  std::string batch = "[" + next + "," + json_call("null", "{}", "2") + "," + (below(2) ? "1" : "{}") + "]";
  switch (below(12)) {
    case 0: *kind = "valid"; return next;
    case 1: *kind = "valid echo"; return json_call("echo", echo);
    case 2: *kind = "unknown method"; return json_call(below(2) ? "nope" : "rpclab.next", ids);
    case 3: *kind = "wrong types"; return json_call("next", bad_id);
    case 4: *kind = "positional params"; return json_call("next", "[1,2]");
    case 5: *kind = "missing params"; return json_call("next", below(2) ? "{}" : "{\"seq\":3}");
    case 6: *kind = "deep nesting"; return json_call("echo", nested("[", "]", 100 + below(5000), ""));
    case 7: *kind = "batch"; return batch;
    case 8: *kind = "notification"; return "{\"jsonrpc\":\"2.0\",\"method\":\"next\",\"params\":" + ids + "}";
    case 9:
      *kind = "bad base64";
      return json_call("echo", "{\"payload\":\"QQ=Q" + std::string(below(2) ? "\\n" : "") + "\"}");
    case 10: *kind = "flipped bits"; flip_bits(&next); return next;
    default: *kind = "not json"; return random_bytes(2000);
  }
}

std::string Forge::jsonrpc_http(std::string* kind) {
  std::string body = json_request(kind);
  return http_post(below(8) ? "/" : "/" + random_bytes(8), "application/json", body, kind);
}

std::string Forge::jsonrpc_http_next() {
  std::string body = json_call("next", "{\"client_id\":" + std::to_string(rogue_client()) +
                                           ",\"seq\":" + std::to_string(rogue_seq()) + "}");
  return "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: " +
         std::to_string(body.size()) + "\r\n\r\n" + body;
}

std::string Forge::jsonrpc_http_partial() { return jsonrpc_http_next().substr(0, 120); }

}  // namespace rpclab::test
