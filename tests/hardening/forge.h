// Garbage for the wire-abuse tests: random bytes, and mutations of real,
// valid requests of each protocol (Sun RPC call messages, raw floor frames,
// gRPC requests over HTTP/2, XML-RPC and JSON-RPC over HTTP/1.1, XML-RPC on
// xmlrpc-c's packet stream). Every forged NEXT names a client id below 256
// (see kProbeClient in probe.h), and a mutation flips at most 4 bits, so
// garbage that still decodes as NEXT is told apart from the probe by id.
#pragma once

#include <cstdint>
#include <map>
#include <random>
#include <string>

namespace rpclab::test {

// What was sent, by kind, for the volumes the tests print.
class Tally {
 public:
  void add(const std::string& kind, size_t bytes);
  uint64_t count() const { return count_; }
  uint64_t bytes() const { return bytes_; }
  std::string summary() const;  // "12,345 (truncated 1,000, flipped bits 2,000, ...)"

 private:
  std::map<std::string, uint64_t> kinds_;
  uint64_t count_ = 0;
  uint64_t bytes_ = 0;
};

class Forge {
 public:
  explicit Forge(uint64_t seed) : rng_(seed) {}

  std::string random_bytes(size_t max_size);
  // A random datagram: mostly up to 1,500 bytes, one in a hundred up to the
  // largest IPv4 UDP payload.
  std::string random_datagram();

  // A valid request, then one mutation of it; `kind` names the mutation.
  // Sun RPC messages carry no record mark; wrap them with record() for TCP.
  std::string sunrpc_call(std::string* kind);
  std::string raw_frame(std::string* kind);
  // A whole HTTP/2 connection's worth of bytes: preface, SETTINGS, HEADERS
  // and DATA for one call of /rpclab.wire.Rpclab/<method>.
  std::string grpc_connection(std::string* kind);
  // Sun RPC over TCP: record-marking mutations besides the call's own.
  std::string sunrpc_record(std::string* kind);

  // One valid NEXT, whole, as each stream protocol carries it (the
  // protocol table, protocols.h, says which is whose).
  std::string sunrpc_record_next();
  std::string grpc_next();
  std::string raw_frame_next();
  // The first part of a valid request: a peer that stops mid-request.
  std::string sunrpc_record_partial();
  std::string grpc_partial();
  std::string raw_frame_partial();

  // The text protocols (forge_text.cc): XML-RPC over HTTP and over
  // xmlrpc-c's packet stream, JSON-RPC 2.0 over HTTP. Each: a mutated
  // request, a valid NEXT, the first part of a request.
  std::string xmlrpc_http(std::string* kind);
  std::string xmlrpc_http_next();
  std::string xmlrpc_http_partial();
  std::string xmlrpc_packet(std::string* kind);
  std::string xmlrpc_packet_next();
  std::string xmlrpc_packet_partial();
  std::string jsonrpc_http(std::string* kind);
  std::string jsonrpc_http_next();
  std::string jsonrpc_http_partial();

  uint32_t below(uint32_t n) { return static_cast<uint32_t>(rng_() % n); }

 private:
  uint32_t rogue_client() { return below(256); }
  uint32_t rogue_seq() { return below(1 << 16); }
  std::string valid_sunrpc_call();
  std::string valid_raw_frame();
  std::string grpc_message(std::string* method);
  std::string xmlrpc_call(std::string* kind);  // a methodCall document, maybe mutated
  std::string json_request(std::string* kind);  // a JSON-RPC request body, maybe mutated
  std::string http_post(const std::string& path, const char* type, const std::string& body, std::string* kind);
  void flip_bits(std::string* bytes, size_t from = 0);
  void set_word(std::string* bytes, size_t offset, uint32_t value);

  std::mt19937_64 rng_;
};

}  // namespace rpclab::test
