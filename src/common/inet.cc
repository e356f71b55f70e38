#include "common/inet.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <linux/filter.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/setup_error.h"

namespace rpclab {

std::string format_endpoint(const std::string& host, uint16_t port) {
  return host + ":" + std::to_string(port);
}

sockaddr_in resolve_ipv4(const std::string& host, uint16_t port) {
  sockaddr_in sin{};
  sin.sin_family = AF_INET;
  sin.sin_port = htons(port);
  if (inet_pton(AF_INET, host.c_str(), &sin.sin_addr) == 1) return sin;
  addrinfo hints{}, *found = nullptr;
  hints.ai_family = AF_INET;
  int rc = getaddrinfo(host.c_str(), nullptr, &hints, &found);
  if (rc != 0 || !found)
    throw SetupError("cannot resolve host '" + host + "': " + gai_strerror(rc) +
                     " (give an IPv4 address such as 127.0.0.1)");
  sin.sin_addr = reinterpret_cast<sockaddr_in*>(found->ai_addr)->sin_addr;
  freeaddrinfo(found);
  return sin;
}

std::string resolve_ipv4_text(const std::string& host) {
  sockaddr_in sin = resolve_ipv4(host, 0);
  char text[INET_ADDRSTRLEN] = {};
  ::inet_ntop(AF_INET, &sin.sin_addr, text, sizeof text);
  return text;
}

int bind_socket(int type, const std::string& host, uint16_t port) {
  sockaddr_in sin = resolve_ipv4(host, port);
  int fd = ::socket(AF_INET, type | SOCK_CLOEXEC, 0);
  if (fd < 0) throw SetupError(std::string("cannot create a socket: ") + std::strerror(errno));
  int one = 1;
  if (type == SOCK_STREAM) ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&sin), sizeof sin) != 0) {
    int err = errno;
    ::close(fd);
    std::string where = format_endpoint(host, port);
    if (err == EADDRINUSE)
      throw SetupError("cannot listen on " + where + ": the port is in use by another program" +
                       " (choose another port, or port 0 to let the system pick one)");
    if (err == EADDRNOTAVAIL)
      throw SetupError("cannot listen on " + where + ": no interface here has that address");
    if (err == EACCES)
      throw SetupError("cannot listen on " + where + ": ports below 1024 need root");
    throw SetupError("cannot listen on " + where + ": " + std::strerror(err));
  }
  if (type == SOCK_STREAM && ::listen(fd, 1024) != 0) {
    int err = errno;
    ::close(fd);
    throw SetupError("cannot listen on " + format_endpoint(host, port) + ": " + std::strerror(err));
  }
  return fd;
}

uint16_t bound_port(int fd) {
  sockaddr_in sin{};
  socklen_t len = sizeof sin;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&sin), &len);
  return ntohs(sin.sin_port);
}

int connect_tcp(const sockaddr_in& addr, int timeout_ms, bool nodelay, std::string* error, int* err_no) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  auto fail = [&](int err) {
    *err_no = err;
    *error = std::strerror(err);
    if (fd >= 0) ::close(fd);
    return -1;
  };
  if (fd < 0) return fail(errno);
  if (nodelay) {
    int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  }
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
    if (errno != EINPROGRESS) return fail(errno);
    pollfd p{fd, POLLOUT, 0};
    int n;
    do n = ::poll(&p, 1, timeout_ms); while (n < 0 && errno == EINTR);
    if (n == 0) return fail(ETIMEDOUT);
    int soerr = 0;
    socklen_t len = sizeof soerr;
    ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len);
    if (soerr != 0) return fail(soerr);
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return fd;
}

size_t drop_stale_replies(int fd, std::optional<uint32_t> keep_xid) {
  size_t dropped = 0;
  for (;;) {
    uint32_t xid_be = 0;
    ssize_t n = ::recv(fd, &xid_be, sizeof xid_be, MSG_DONTWAIT | MSG_PEEK);
    if (n < 0) return dropped;  // empty (EAGAIN) or an error clnt_dg will meet itself
    if (keep_xid && n == static_cast<ssize_t>(sizeof xid_be) && ntohl(xid_be) == *keep_xid) return dropped;
    char sink[1];
    if (::recv(fd, sink, sizeof sink, MSG_DONTWAIT | MSG_TRUNC) < 0) return dropped;
    ++dropped;
  }
}

void accept_only_xid(int fd, uint32_t xid) {
  // A UDP socket's filter sees the datagram from its UDP header (8 bytes)
  // on; the XID is the payload's first word, loaded in host order.
  sock_filter code[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 8),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, xid, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, 0xffffffffu),  // the whole datagram
      BPF_STMT(BPF_RET | BPF_K, 0),            // none of it
  };
  sock_fprog program{static_cast<unsigned short>(sizeof code / sizeof code[0]), code};
  if (::setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &program, sizeof program) != 0)
    throw SetupError(std::string("cannot filter the client's socket by XID: ") + std::strerror(errno));
}

}  // namespace rpclab
