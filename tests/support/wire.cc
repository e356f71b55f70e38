#include "support/wire.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace rpclab::test {
namespace {

sockaddr_in loopback(uint16_t port) {
  sockaddr_in sin{};
  sin.sin_family = AF_INET;
  sin.sin_port = htons(port);
  sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return sin;
}

[[noreturn]] void fail(const std::string& what) { throw std::runtime_error(what + ": " + std::strerror(errno)); }

}  // namespace

std::string be32(uint32_t v) {
  uint32_t n = htonl(v);
  return std::string(reinterpret_cast<const char*>(&n), 4);
}

std::string xdr_opaque(const std::string& bytes) {
  return be32(static_cast<uint32_t>(bytes.size())) + bytes + std::string((4 - bytes.size() % 4) % 4, '\0');
}

std::string rpc_call(uint32_t xid, uint32_t prog, uint32_t vers, uint32_t proc, const std::string& args,
                     uint32_t rpcvers) {
  return be32(xid) + be32(0) + be32(rpcvers) + be32(prog) + be32(vers) + be32(proc) + be32(0) + be32(0) + be32(0) +
         be32(0) + args;
}

std::string record(const std::string& message) {
  return be32(0x80000000u | static_cast<uint32_t>(message.size())) + message;
}

int tcp_connect(uint16_t port, int rcvbuf) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) fail("socket");
  if (rcvbuf) ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
  sockaddr_in sin = loopback(port);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&sin), sizeof sin) != 0) {
    ::close(fd);
    fail("connect to 127.0.0.1:" + std::to_string(port));
  }
  return fd;
}

int udp_socket() {
  int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) fail("socket");
  return fd;
}

void udp_send(int fd, uint16_t port, const std::string& datagram) {
  sockaddr_in sin = loopback(port);
  ::sendto(fd, datagram.data(), datagram.size(), 0, reinterpret_cast<sockaddr*>(&sin), sizeof sin);
}

void send_some(int fd, const std::string& bytes) {
  ::send(fd, bytes.data(), bytes.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
}

long recv_within(int fd, std::string* into, int timeout_ms, size_t max) {
  pollfd p{fd, POLLIN, 0};
  if (::poll(&p, 1, timeout_ms) <= 0) return -1;
  std::string buf(max, '\0');
  long n = ::recv(fd, buf.data(), buf.size(), MSG_DONTWAIT);
  if (n > 0) into->append(buf.data(), static_cast<size_t>(n));
  return n;
}

void close_with_reset(int fd) {
  linger hard{1, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &hard, sizeof hard);
  ::close(fd);
}

}  // namespace rpclab::test
