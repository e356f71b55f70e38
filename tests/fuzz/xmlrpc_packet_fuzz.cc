// Target xmlrpc_packet: the bytes a peer sends on an xmlrpc-pstream
// connection. xmlrpc-c's packet socket cuts them into packets (ESC "PKT"
// ... ESC "END", ESC "ESC" for a literal ESC) and serverPstreamConn runs
// each packet as an XML-RPC call through rpclab's registry, exactly as
// src/xmlrpc/xmlrpc_pstream_server.cc does for one connection: here the
// connection is one end of a socketpair, the input written into the other
// and then closed. Framing that is not the protocol makes xmlrpc-c throw,
// which ends the connection (its documented failure); every reply it
// wrote must be a whole packet.
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <thread>

#include <xmlrpc-c/girerr.hpp>
#include <xmlrpc-c/server_pstream.hpp>

#include "server/server_core.h"
#include "fuzz_targets.h"
#include "xmlrpc/xmlrpc_service.h"

namespace rpclab::fuzz {
namespace {

constexpr size_t kLedgerBytes = size_t{4} << 20;

std::string read_all(int fd) {
  std::string bytes;
  char buf[65536];
  ssize_t n;
  while ((n = ::read(fd, buf, sizeof buf)) > 0) bytes.append(buf, static_cast<size_t>(n));
  return bytes;
}

void send_all(int fd, const uint8_t* data, size_t size) {
  while (size > 0) {
    ssize_t n = ::write(fd, data, size);
    if (n <= 0) return;  // the server closed its end: the rest is not read
    data += n;
    size -= static_cast<size_t>(n);
  }
}

}  // namespace

int fuzz_xmlrpc_packet(const uint8_t* data, size_t size) {
  static ServerCore core(kLedgerBytes);
  static xmlrpc_c::registryPtr registry = xmlrpc::make_registry(core);
  int ends[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0) throw std::runtime_error("socketpair");
  std::string replies;
  std::thread peer([&] {  // writes the input, then reads every reply until the server's end closes
    send_all(ends[1], data, size);
    ::shutdown(ends[1], SHUT_WR);
    replies = read_all(ends[1]);
  });
  try {
    xmlrpc_c::serverPstreamConn server(
        xmlrpc_c::serverPstreamConn::constrOpt().registryPtr(registry).socketFd(ends[0]));
    server.run();
  } catch (const girerr::error&) {
    // not the packet protocol: the connection ends
  }
  ::shutdown(ends[0], SHUT_RDWR);
  peer.join();
  ::close(ends[0]);
  ::close(ends[1]);
  for (size_t at = 0; at < replies.size();) {  // whole packets only: PKT ... END, again and again
    RPCLAB_FUZZ_CHECK(replies.compare(at, 4, "\x1bPKT") == 0, "a reply does not start a packet");
    size_t end = replies.find("\x1b" "END", at + 4);
    RPCLAB_FUZZ_CHECK(end != std::string::npos, "a reply packet has no end");
    at = end + 4;
  }
  return 0;
}

}  // namespace rpclab::fuzz
