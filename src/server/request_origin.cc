#include "server/request_origin.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <charconv>
#include <cstring>
#include <string>

#include "server/journal_format.h"

namespace rpclab {

void RequestOrigin::set_request_id(uint32_t id) {
  request_id = id;
  known |= journal::kKnowsRequestId;
}

void RequestOrigin::set_attempt(uint16_t n) {
  attempt = n;
  known |= journal::kKnowsAttempt;
}

void RequestOrigin::set_connection(uint32_t id) {
  connection = id;
  known |= journal::kKnowsConnection;
}

void RequestOrigin::set_kernel_arrival(int64_t realtime_ns) {
  kernel_arrival_ns = realtime_ns;
  known |= journal::kKnowsKernelArrival;
}

void RequestOrigin::set_peer(const sockaddr* addr, socklen_t len) {
  if (!addr) return;
  if (addr->sa_family == AF_INET && len >= static_cast<socklen_t>(sizeof(sockaddr_in))) {
    const auto* sin = reinterpret_cast<const sockaddr_in*>(addr);
    peer_ipv4 = ntohl(sin->sin_addr.s_addr);
    peer_port = ntohs(sin->sin_port);
    known |= journal::kKnowsPeer;
  } else if (addr->sa_family == AF_INET6 && len >= static_cast<socklen_t>(sizeof(sockaddr_in6))) {
    const auto* sin6 = reinterpret_cast<const sockaddr_in6*>(addr);
    if (!IN6_IS_ADDR_V4MAPPED(&sin6->sin6_addr)) return;
    uint32_t v4;
    std::memcpy(&v4, sin6->sin6_addr.s6_addr + 12, sizeof v4);
    peer_ipv4 = ntohl(v4);
    peer_port = ntohs(sin6->sin6_port);
    known |= journal::kKnowsPeer;
  }
}

void RequestOrigin::set_peer_uri(std::string_view uri) {
  constexpr std::string_view kPrefix = "ipv4:";
  if (uri.substr(0, kPrefix.size()) != kPrefix) return;
  uri.remove_prefix(kPrefix.size());
  size_t colon = uri.rfind(':');
  if (colon == std::string_view::npos) return;
  std::string host(uri.substr(0, colon));
  std::string_view port_text = uri.substr(colon + 1);
  unsigned port = 0;
  auto [end, err] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  in_addr a{};
  if (err != std::errc() || end != port_text.data() + port_text.size() || port > 65535 ||
      inet_pton(AF_INET, host.c_str(), &a) != 1)
    return;
  peer_ipv4 = ntohl(a.s_addr);
  peer_port = static_cast<uint16_t>(port);
  known |= journal::kKnowsPeer;
}

}  // namespace rpclab
