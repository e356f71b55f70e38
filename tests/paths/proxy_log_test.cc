// A proxy's log read back (proxy_log.h), on lines written as the
// templates' log formats make them (harness/paths/templates/):
//   HAProxy (haproxy-h2.cfg, haproxy-http1.cfg):
//     rpclab-request client=%ci:%cp server=%s retries=%rc status=%ST tr=%Tr term=%tsc body=%[var(txn.body)]
//   HAProxy in mode tcp (haproxy-tcp.cfg):
//     rpclab-session client=%ci:%cp server=%s retries=%rc term=%ts bytes_in=%U bytes_out=%B
//   nginx (nginx-grpc.conf, nginx-http1.conf):
//     rpclab-request worker=$pid t=$msec client=$remote_addr:$remote_port upstream=$upstream_addr upstream_status=$upstream_status status=$status rt=$request_time
//   nginx's stream module (nginx-stream-*.conf):
//     rpclab-session worker=$pid t=$msec client=$remote_addr:$remote_port upstream=$upstream_addr status=$status
// HAProxy's hex converter writes capitals; its %rc is "+N" after a
// redispatch. The bodies are the NEXT requests each adapter's client
// sends (idl/rpclab.proto, src/xmlrpc/xmlrpc_wire.h, src/jsonrpc/jsonrpc_wire.h).
// No proxy runs here.
#include "harness/paths/proxy_log.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "support/temp_dir.h"

namespace rpclab::harness {
namespace {

using Call = std::pair<uint32_t, uint32_t>;

std::string hex(const std::string& bytes) {
  static const char digits[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char b : bytes) {
    out.push_back(digits[b >> 4]);
    out.push_back(digits[b & 15]);
  }
  return out;
}

void varint(std::string& out, uint64_t v) {
  for (; v >= 0x80; v >>= 7) out.push_back(static_cast<char>((v & 0x7f) | 0x80));
  out.push_back(static_cast<char>(v));
}

// A gRPC message of rpclab.wire.NextRequest: the 5-byte frame header
// (uncompressed, big-endian length), then fields 1 and 2 as proto3 writes
// them (a 0 left out).
std::string grpc_next(uint32_t client, uint32_t seq) {
  std::string pb;
  if (client) pb.push_back(0x08), varint(pb, client);
  if (seq) pb.push_back(0x10), varint(pb, seq);
  std::string msg(1, '\0');
  for (int shift = 24; shift >= 0; shift -= 8) msg.push_back(static_cast<char>((pb.size() >> shift) & 0xff));
  return msg + pb;
}

// xmlrpc-c's request for rpclab.next(i4 client_id, i4 seq).
std::string xmlrpc_next(const std::string& client, const std::string& seq) {
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\r\n<methodCall>\r\n<methodName>rpclab.next</methodName>\r\n"
         "<params>\r\n<param><value><i4>" + client + "</i4></value></param>\r\n<param><value><i4>" + seq +
         "</i4></value></param>\r\n</params>\r\n</methodCall>\r\n";
}

// libjson-rpc-cpp's request for next({client_id, seq}).
std::string jsonrpc_next(const std::string& client, const std::string& seq) {
  return "{\"id\":1,\"jsonrpc\":\"2.0\",\"method\":\"next\",\"params\":{\"client_id\":" + client + ",\"seq\":" + seq + "}}\n";
}

std::string haproxy_line(const std::string& server, const std::string& retries, const std::string& body_hex,
                         const std::string& status = "200") {
  return "rpclab-request client=10.77.0.2:40312 server=" + server + " retries=" + retries + " status=" + status +
         " tr=305 term=---- body=" + body_hex;
}

std::string nginx_line(const std::string& upstream, const std::string& upstream_status, const std::string& status) {
  return "rpclab-request worker=20429 t=1796611898.213 client=10.77.0.2:40312 upstream=" + upstream + " upstream_status=" + upstream_status +
         " status=" + status + " rt=0.305";
}

TEST(ProxyLogBody, GrpcNextRequest) {
  // Written out once by hand, so the helper above is not the only witness:
  // 00 | 00000004 | 08 07 | 10 03 is client 7, seq 3.
  EXPECT_EQ(call_of_body("000000000408071003"), (Call{7, 3}));
  EXPECT_EQ(call_of_body(hex(grpc_next(7, 3))), (Call{7, 3}));
  // Many-byte varints, and ids past 2^31 (a client id is any uint32).
  EXPECT_EQ(call_of_body(hex(grpc_next(0xDEADBEEF, 300))), (Call{0xDEADBEEF, 300}));
  // proto3 leaves a 0 out: seq 0, and an empty message for (0, 0).
  EXPECT_EQ(call_of_body(hex(grpc_next(9, 0))), (Call{9, 0}));
  EXPECT_EQ(call_of_body("0000000000"), (Call{0, 0}));
  // HAProxy writes capitals; lower case reads the same.
  EXPECT_EQ(call_of_body("00000000040807100A"), (Call{7, 10}));
  EXPECT_EQ(call_of_body("00000000040807100a"), (Call{7, 10}));
}

TEST(ProxyLogBody, GrpcMessagesThatAreNotANextRequest) {
  // Compressed flag set.
  EXPECT_EQ(call_of_body("010000000408071003"), std::nullopt);
  // The length says more than the buffer holds (a body cut at HAProxy's buffer).
  EXPECT_EQ(call_of_body("0000000006080710"), std::nullopt);
  // A field NextRequest does not have (3, length-delimited: an ECHO's payload).
  EXPECT_EQ(call_of_body(hex(std::string("\0\0\0\0\x04\x1a\x02hi", 9))), std::nullopt);
  // A varint never ended.
  EXPECT_EQ(call_of_body("00000000020880"), std::nullopt);
}

TEST(ProxyLogBody, XmlRpcNext) {
  EXPECT_EQ(call_of_body(hex(xmlrpc_next("7", "3"))), (Call{7, 3}));
  // A client id past 2^31 travels as a negative i4 (xmlrpc_wire.h's to_i4).
  EXPECT_EQ(call_of_body(hex(xmlrpc_next("-559038737", "12"))), (Call{0xDEADBEEF, 12}));
  // <int> is i4's other spelling.
  std::string as_int = xmlrpc_next("5", "6");
  for (size_t at; (at = as_int.find("i4>")) != std::string::npos;) as_int.replace(at, 3, "int>");
  EXPECT_EQ(call_of_body(hex(as_int)), (Call{5, 6}));
}

TEST(ProxyLogBody, JsonRpcNext) {
  EXPECT_EQ(call_of_body(hex(jsonrpc_next("7", "3"))), (Call{7, 3}));
  EXPECT_EQ(call_of_body(hex(jsonrpc_next("4294967295", "0"))), (Call{4294967295u, 0}));
  // The request's "id" is not the call's seq.
  EXPECT_EQ(call_of_body(hex("{\"id\":99,\"params\":{\"seq\":2,\"client_id\":8}}")), (Call{8, 2}));
}

TEST(ProxyLogBody, NoBodyOrAnotherBody) {
  EXPECT_EQ(call_of_body(""), std::nullopt);
  EXPECT_EQ(call_of_body("-"), std::nullopt);  // HAProxy's empty variable
  EXPECT_EQ(call_of_body(hex("{\"jsonrpc\":\"2.0\",\"method\":\"echo\",\"params\":{\"text\":\"hi\"}}")), std::nullopt);
  EXPECT_EQ(call_of_body(hex("<methodCall><methodName>rpclab.echo</methodName></methodCall>")), std::nullopt);
}

TEST(ProxyLogBody, NumbersPastAnIdAreNoCall) {
  // A body is what a client sent; a number no uint32 holds makes it no
  // NEXT of rpclab's, not a reason to stop reading the log.
  EXPECT_EQ(call_of_body(hex(jsonrpc_next("99999999999999999999", "3"))), std::nullopt);
  EXPECT_EQ(call_of_body(hex(jsonrpc_next("7", "4294967296"))), std::nullopt);
  EXPECT_EQ(call_of_body(hex(xmlrpc_next("99999999999999999999", "3"))), std::nullopt);
}

TEST(ProxyLogLine, HaproxyRequestWithoutRetry) {
  auto r = parse_proxy_line(haproxy_line("r1", "0", hex(grpc_next(7, 3))));
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->session);
  EXPECT_EQ(r->attempts, 1);
  EXPECT_EQ(r->upstream, "r1");
  EXPECT_EQ(r->status, "200");
  EXPECT_EQ(r->call, (Call{7, 3}));
}

TEST(ProxyLogLine, HaproxyRetriesAreAttempts) {
  auto retried = parse_proxy_line(haproxy_line("r1", "2", hex(xmlrpc_next("4", "9"))));
  ASSERT_TRUE(retried);
  EXPECT_EQ(retried->attempts, 3);
  EXPECT_EQ(retried->call, (Call{4, 9}));
  // After a redispatch %rc is "+N": the last attempt went to another server.
  auto redispatched = parse_proxy_line(haproxy_line("r2", "+1", hex(jsonrpc_next("4", "10")), "200"));
  ASSERT_TRUE(redispatched);
  EXPECT_EQ(redispatched->attempts, 2);
  EXPECT_EQ(redispatched->upstream, "r2");
  EXPECT_EQ(redispatched->call, (Call{4, 10}));
  // A request HAProxy answered itself: no server, no body; -1 retries is no retry.
  auto refused = parse_proxy_line(haproxy_line("<NOSRV>", "-1", "-", "503"));
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->attempts, 1);
  EXPECT_EQ(refused->status, "503");
  EXPECT_EQ(refused->call, std::nullopt);
}

TEST(ProxyLogLine, HaproxyTcpSession) {
  auto r = parse_proxy_line("rpclab-session client=10.77.0.2:901 server=r2 retries=1 term=-- bytes_in=4400 bytes_out=3600");
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->session);
  EXPECT_EQ(r->attempts, 2);
  EXPECT_EQ(r->upstream, "r2");
  EXPECT_EQ(r->call, std::nullopt);
}

TEST(ProxyLogLine, NginxUpstreamListIsAttempts) {
  auto one = parse_proxy_line(nginx_line("10.77.1.2:17001", "200", "200"));
  ASSERT_TRUE(one);
  EXPECT_EQ(one->attempts, 1);
  EXPECT_EQ(one->upstream, "10.77.1.2:17001");
  EXPECT_EQ(one->status, "200");
  // "A, B": the first timed out, the second answered.
  auto two = parse_proxy_line(nginx_line("10.77.1.2:17001, 10.77.2.2:17001", "504, 200", "200"));
  ASSERT_TRUE(two);
  EXPECT_EQ(two->attempts, 2);
  EXPECT_EQ(two->upstream, "10.77.2.2:17001");
  EXPECT_EQ(two->upstreams, "10.77.1.2:17001, 10.77.2.2:17001");  // every attempt: out-of-pool's check reads it
  EXPECT_EQ(two->worker, "20429");  // the worker, so the configuration it carried it under
  EXPECT_DOUBLE_EQ(two->ended, 1796611898.213);  // when it ended: before or after a reload
  EXPECT_EQ(two->status, "200");  // the client's, not upstream_status's list
  auto three = parse_proxy_line(nginx_line("10.77.1.2:17001, 10.77.2.2:17001, 10.77.3.2:17001", "504, 504, 504", "504"));
  ASSERT_TRUE(three);
  EXPECT_EQ(three->attempts, 3);
  EXPECT_EQ(three->upstream, "10.77.3.2:17001");
  EXPECT_EQ(three->status, "504");
  // nginx logs no body: the call is unknown.
  EXPECT_EQ(two->call, std::nullopt);
}

TEST(ProxyLogLine, NginxStreamSession) {
  auto r = parse_proxy_line("rpclab-session worker=20429 client=10.77.0.2:834 upstream=10.77.2.2:17001 status=200");
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->session);
  EXPECT_EQ(r->attempts, 1);
  EXPECT_EQ(r->upstream, "10.77.2.2:17001");
}

TEST(ProxyLogLine, APrefixBeforeTheFormatIsSkipped) {
  // A syslog header (a log target other than `format raw`) before the line.
  auto r = parse_proxy_line("<134>Nov 29 10:00:00 haproxy[41]: " + haproxy_line("r2", "1", hex(grpc_next(1, 2))));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->attempts, 2);
  EXPECT_EQ(r->call, (Call{1, 2}));
}

TEST(ProxyLogLine, OtherLinesAreNotRequests) {
  EXPECT_EQ(parse_proxy_line(""), std::nullopt);
  EXPECT_EQ(parse_proxy_line("[NOTICE]   (41) : New worker (42) forked"), std::nullopt);
  EXPECT_EQ(parse_proxy_line("2026/11/29 10:00:00 [notice] 41#41: start worker processes"), std::nullopt);
  // The word alone, without its fields' space, is another program's.
  EXPECT_EQ(parse_proxy_line("rpclab-requests=4"), std::nullopt);
}

TEST(ProxyLogLine, TruncatedLinesCountOneAttempt) {
  // A line cut short (a full disk, a killed proxy) still counts as a request,
  // and claims no retry it does not show.
  auto cut = parse_proxy_line("rpclab-request client=10.77.0.2:40312 server=r1 retr");
  ASSERT_TRUE(cut);
  EXPECT_EQ(cut->attempts, 1);
  EXPECT_EQ(cut->call, std::nullopt);
  auto garbage = parse_proxy_line(haproxy_line("r1", "x", "ZZ"));
  ASSERT_TRUE(garbage);
  EXPECT_EQ(garbage->attempts, 1);
  EXPECT_EQ(garbage->call, std::nullopt);
}

TEST(ProxyLogFile, ReadsRequestsAndCountsTheRest) {
  test::TempDir dir;
  std::string path = dir.plant("proxy.log", "[NOTICE]   (41) : haproxy version is 2.6.12\n" +
                                                haproxy_line("r1", "0", hex(grpc_next(1, 0))) + "\n" +
                                                haproxy_line("r2", "+1", hex(grpc_next(1, 1))) + "\n" +
                                                "[WARNING]  (42) : Server replicas/r1 is DOWN\n" +
                                                haproxy_line("r2", "0", hex(grpc_next(1, 2))) + "\n");
  ProxyLog log = read_proxy_log(path);
  ASSERT_EQ(log.requests.size(), 3u);
  EXPECT_EQ(log.lines_skipped, 2u);
  EXPECT_TRUE(log.has_requests());
  EXPECT_EQ(log.retried(), 1u);
  EXPECT_EQ(log.requests[1].call, (Call{1, 1}));
  EXPECT_EQ(log.requests[1].attempts, 2);
}

// Caddy 2.6.2's own log with `debug` (captured on this machine, the
// request's headers cut): each upstream round trip, when and to which.
TEST(ProxyLogFile, CaddysRoundtripsFromItsDebugLog) {
  test::TempDir dir;
  std::string path = dir.plant(
      "proxy-error.log",
      "{\"level\":\"info\",\"ts\":1796611897.9,\"logger\":\"admin.api\",\"msg\":\"load complete\"}\n"
      "{\"level\":\"debug\",\"ts\":1796611898.2130485,\"logger\":\"http.handlers.reverse_proxy\",\"msg\":"
      "\"upstream roundtrip\",\"upstream\":\"198.18.12.2:32095\",\"duration\":0.006782052,\"request\":{\"remote_ip\":"
      "\"198.18.1.2\",\"proto\":\"HTTP/1.1\",\"method\":\"POST\",\"uri\":\"/\"}}\n"
      "{\"level\":\"debug\",\"ts\":1796611898.25,\"logger\":\"http.handlers.reverse_proxy\",\"msg\":\"selected "
      "upstream\",\"dial\":\"198.18.11.2:32095\"}\n"
      "not json, \"upstream roundtrip\"\n");
  std::vector<CaddyRoundtrip> r = read_caddy_roundtrips(path);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_DOUBLE_EQ(r[0].ended, 1796611898.2130485);
  EXPECT_EQ(r[0].upstream, "198.18.12.2:32095");
  EXPECT_TRUE(read_caddy_roundtrips(dir.file("none")).empty());
}

TEST(ProxyLogFile, MissingFileIsAnEmptyLog) {
  test::TempDir dir;
  ProxyLog log = read_proxy_log(dir.file("never-written.log"));
  EXPECT_FALSE(log.has_requests());
  EXPECT_EQ(log.lines_skipped, 0u);
  EXPECT_EQ(log.retried(), 0u);
}

}  // namespace
}  // namespace rpclab::harness
