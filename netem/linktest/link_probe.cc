#include "netem/linktest/link_probe.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <deque>
#include <optional>
#include <stdexcept>
#include <vector>

#include "common/atomic_file.h"

namespace rpclab::netem {

namespace {

constexpr uint32_t kMagic = 0x52504c42;  // "RPLB"
enum Kind : uint8_t { kProbe = 1, kEcho = 2, kStatsRequest = 3, kStatsReply = 4 };
constexpr size_t kHeader = 24;
constexpr int kSocketBuffer = 8 << 20;
constexpr int kStatsAttempts = 50;
constexpr int kStatsIntervalMs = 100;
// At most this many probes unanswered: the pace is a ceiling, and a host or
// guest too busy to carry it slows the sender instead of filling a socket
// (a reflector that falls behind queues probes in its own). 1,024 probes
// and their copies take under 1 MB of a receive buffer (a 64-byte datagram
// costs ~770 bytes there), far below the 8 MiB asked for, and keep 20,000
// probes/s going over round trips up to 50 ms.
constexpr size_t kMaxInFlight = 1024;
constexpr uint64_t kWindowWaitNs = 1000000;  // with the window full, look again after 1 ms at most

// magic u32 | kind u8 | 3 pad | seq u32 | echo_id u32 | send_ns u64, network order.
struct Header {
  uint8_t kind = 0;
  uint32_t seq = 0, echo_id = 0;
  uint64_t send_ns = 0;
};

void encode(const Header& h, char* buf) {
  std::memset(buf, 0, kHeader);
  uint32_t magic = htonl(kMagic), seq = htonl(h.seq), echo = htonl(h.echo_id);
  uint32_t hi = htonl(static_cast<uint32_t>(h.send_ns >> 32)), lo = htonl(static_cast<uint32_t>(h.send_ns));
  std::memcpy(buf, &magic, 4);
  buf[4] = static_cast<char>(h.kind);
  std::memcpy(buf + 8, &seq, 4);
  std::memcpy(buf + 12, &echo, 4);
  std::memcpy(buf + 16, &hi, 4);
  std::memcpy(buf + 20, &lo, 4);
}

bool decode(const char* buf, size_t len, Header& h) {
  if (len < kHeader) return false;
  uint32_t magic, seq, echo, hi, lo;
  std::memcpy(&magic, buf, 4);
  if (ntohl(magic) != kMagic) return false;
  h.kind = static_cast<uint8_t>(buf[4]);
  std::memcpy(&seq, buf + 8, 4);
  std::memcpy(&echo, buf + 12, 4);
  std::memcpy(&hi, buf + 16, 4);
  std::memcpy(&lo, buf + 20, 4);
  h.seq = ntohl(seq);
  h.echo_id = ntohl(echo);
  h.send_ns = (static_cast<uint64_t>(ntohl(hi)) << 32) | ntohl(lo);
  return true;
}

uint64_t now_ns() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + ts.tv_nsec;
}

sockaddr_in address(const std::string& host, uint16_t port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  if (::inet_pton(AF_INET, host.c_str(), &a.sin_addr) != 1)
    throw std::runtime_error("not an IPv4 address: " + host);
  return a;
}

int udp_socket() {
  int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw std::runtime_error(std::string("socket: ") + std::strerror(errno));
  for (int opt : {SO_RCVBUF, SO_SNDBUF}) {
    int force = opt == SO_RCVBUF ? SO_RCVBUFFORCE : SO_SNDBUFFORCE;
    if (::setsockopt(fd, SOL_SOCKET, force, &kSocketBuffer, sizeof kSocketBuffer) != 0)
      ::setsockopt(fd, SOL_SOCKET, opt, &kSocketBuffer, sizeof kSocketBuffer);  // not root: up to rmem_max
  }
  return fd;
}

// Marks `id` seen in a growing bitmap; returns true the first time.
bool first_time(std::vector<uint8_t>& seen, uint32_t id) {
  if (id >= seen.size()) seen.resize(std::max<size_t>(id + 1, seen.size() * 2), 0);
  if (seen[id]) return false;
  seen[id] = 1;
  return true;
}

double percentile(std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  size_t i = static_cast<size_t>(p * (sorted.size() - 1) + 0.5);
  return sorted[std::min(i, sorted.size() - 1)];
}

class Sender {
 public:
  explicit Sender(const SenderOptions& o) : o_(o), fd_(udp_socket()), peer_(address(o.host, o.port)) {
    if (o_.size < static_cast<int>(kHeader)) o_.size = kHeader;
    buf_.resize(std::max(o_.size, 65536));
  }
  ~Sender() { ::close(fd_); }

  nlohmann::json run() {
    uint64_t start = now_ns();
    double interval_ns = 1e9 / std::max(o_.rate_pps, 1.0);
    for (int i = 0; i < o_.count;) {
      uint64_t due = start + static_cast<uint64_t>(i * interval_ns), now = now_ns();
      bool window_full = in_flight(now) >= kMaxInFlight;
      if (now >= due && !window_full) {
        send(Header{kProbe, static_cast<uint32_t>(i), 0, now}, o_.size);
        in_flight_.push_back({static_cast<uint32_t>(i), now});
        ++probes_sent_;
        ++i;
        // Read what has come back before the next probe, also when late. A
        // sender that can only just keep the pace (a user-mode-linux
        // guest's one CPU on a busy host) is late for every probe; reading
        // only while early, it left every echo in its socket until the last
        // probe: with 5% copies each way about 22,050 echoes, more than its
        // receive buffer holds (8 MiB asked for, doubled by the kernel:
        // ~21,800 such datagrams), so some hundred were socket drops,
        // counted as loss, and round trips took seconds.
        drain_ready();
        continue;
      }
      if (now >= due) ++window_waits_;
      receive_until(now >= due ? now + kWindowWaitNs : due);
    }
    receive_until(now_ns() + static_cast<uint64_t>(o_.drain_ms) * 1000000ull);
    ask_for_stats();
    return report((now_ns() - start) / 1e9);
  }

 private:
  void send(const Header& h, int size) {
    encode(h, buf_.data());
    ssize_t n = ::sendto(fd_, buf_.data(), size, 0, reinterpret_cast<const sockaddr*>(&peer_), sizeof peer_);
    if (n == size) ++datagrams_sent_;
    else ++send_errors_;
  }

  void receive_until(uint64_t deadline) {
    for (;;) {
      uint64_t now = now_ns();
      if (now >= deadline) {
        drain_ready();
        return;
      }
      timespec wait = {static_cast<time_t>((deadline - now) / 1000000000ull),
                       static_cast<long>((deadline - now) % 1000000000ull)};
      pollfd p{fd_, POLLIN, 0};
      if (::ppoll(&p, 1, &wait, nullptr) <= 0) return;
      drain_ready();
    }
  }

  // Reads everything queued; returns whether anything was.
  bool drain_ready() {
    bool any = false;
    for (;;) {
      ssize_t n = ::recv(fd_, buf_.data(), buf_.size(), MSG_DONTWAIT);
      if (n < 0) {
        if (errno == EINTR || errno == ECONNREFUSED) continue;
        return any;
      }
      any = true;
      ++datagrams_received_;
      Header h;
      if (decode(buf_.data(), n, h)) handle(h, n);
    }
  }

  void handle(const Header& h, ssize_t n) {
    if (h.kind == kStatsReply) {
      try {
        reflector_ = nlohmann::json::parse(std::string(buf_.data() + kHeader, n - kHeader));
      } catch (const nlohmann::json::exception&) {
      }
      return;
    }
    if (h.kind != kEcho) return;
    ++echoes_received_;
    last_echo_ns_ = now_ns();
    if (h.seq < static_cast<uint32_t>(o_.count)) newest_echoed_ = std::max(newest_echoed_.value_or(0), h.seq);
    if (first_time(echo_ids_, h.echo_id)) ++echoes_unique_;
    if (h.seq < static_cast<uint32_t>(o_.count) && first_time(echoed_seqs_, h.seq)) {
      rtt_ms_.push_back((now_ns() - h.send_ns) / 1e6);
    }
  }

  // Probes sent and not answered, oldest first. One is no longer waited
  // for once it is echoed, or overtaken (a later probe's echo came back:
  // lost, or reordered, whose echo still counts when it comes), or when
  // nothing at all has come back for drain_ms (a link that carries
  // nothing). Not by its age alone: behind a slow reflector every probe is
  // old and none is lost, and releasing them would let its queue grow.
  size_t in_flight(uint64_t now) {
    uint64_t give_up_ns = static_cast<uint64_t>(o_.drain_ms) * 1000000ull;
    bool silent = now - last_echo_ns_ > give_up_ns;
    while (!in_flight_.empty()) {
      auto [seq, sent_ns] = in_flight_.front();
      bool echoed = seq < echoed_seqs_.size() && echoed_seqs_[seq];
      bool overtaken = newest_echoed_ && *newest_echoed_ > seq;
      if (!echoed && !overtaken && !(silent && now - sent_ns > give_up_ns)) break;
      in_flight_.pop_front();
    }
    return in_flight_.size();
  }

  void ask_for_stats() {
    for (int i = 0; i < kStatsAttempts && reflector_.is_null(); ++i) {
      send(Header{kStatsRequest, static_cast<uint32_t>(i), 0, now_ns()}, kHeader);
      receive_until(now_ns() + kStatsIntervalMs * 1000000ull);
    }
  }

  nlohmann::json report(double seconds) {
    std::sort(rtt_ms_.begin(), rtt_ms_.end());
    nlohmann::json j = {
        {"role", "sender"}, {"to", o_.host + ":" + std::to_string(o_.port)}, {"count", o_.count},
        {"rate_pps", o_.rate_pps}, {"size", o_.size}, {"duration_s", seconds},
        {"datagrams_sent", datagrams_sent_}, {"datagrams_received", datagrams_received_},
        {"probes_sent", probes_sent_}, {"send_errors", send_errors_}, {"echoes_received", echoes_received_},
        {"echoes_unique", echoes_unique_}, {"probes_echoed", rtt_ms_.size()},
        {"in_flight_limit", kMaxInFlight}, {"window_waits", window_waits_},
        {"rtt_ms", {{"samples", rtt_ms_.size()}, {"min", rtt_ms_.empty() ? 0 : rtt_ms_.front()},
                    {"p50", percentile(rtt_ms_, 0.5)}, {"p90", percentile(rtt_ms_, 0.9)},
                    {"p99", percentile(rtt_ms_, 0.99)}, {"max", rtt_ms_.empty() ? 0 : rtt_ms_.back()}}},
        {"reflector", reflector_}};
    if (reflector_.is_object()) {
      j["to_server"] = direction_view(probes_sent_, reflector_.value("probes_received", 0ull),
                                      reflector_.value("probes_unique", 0ull));
      j["to_client"] = direction_view(reflector_.value("echoes_sent", 0ull), echoes_received_, echoes_unique_);
    }
    return j;
  }

  SenderOptions o_;
  int fd_;
  sockaddr_in peer_;
  std::vector<char> buf_;
  std::vector<uint8_t> echo_ids_, echoed_seqs_;
  std::vector<double> rtt_ms_;
  uint64_t probes_sent_ = 0, datagrams_sent_ = 0, datagrams_received_ = 0, send_errors_ = 0;
  uint64_t echoes_received_ = 0, echoes_unique_ = 0, window_waits_ = 0;
  std::deque<std::pair<uint32_t, uint64_t>> in_flight_;  // seq, sent at
  std::optional<uint32_t> newest_echoed_;                 // the highest seq echoed yet
  uint64_t last_echo_ns_ = now_ns();
  nlohmann::json reflector_;
};

}  // namespace

nlohmann::json direction_view(uint64_t sent, uint64_t received, uint64_t unique) {
  double s = sent > 0 ? static_cast<double>(sent) : 1.0;
  return {{"sent", sent},
          {"received", received},
          {"unique", unique},
          {"loss_pct", 100.0 * (static_cast<double>(sent) - unique) / s},
          {"dup_pct", 100.0 * (static_cast<double>(received) - unique) / s}};
}

nlohmann::json run_sender(const SenderOptions& options) { return Sender(options).run(); }

nlohmann::json run_reflector(const ReflectorOptions& o, const std::atomic<bool>& stop) {
  int fd = udp_socket();
  sockaddr_in local = address(o.host, o.port);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&local), sizeof local) != 0) {
    int err = errno;
    ::close(fd);
    throw std::runtime_error("bind " + o.host + ":" + std::to_string(o.port) + ": " + std::strerror(err));
  }
  if (!o.ready_file.empty()) rpclab::write_file_atomically(o.ready_file, "ready\n");
  std::vector<char> buf(65536);
  std::vector<uint8_t> seen;
  uint64_t received = 0, sent = 0, probes = 0, unique = 0, echoes = 0, stats_requests = 0;
  auto stats = [&] {
    return nlohmann::json{{"role", "reflector"},    {"datagrams_received", received}, {"datagrams_sent", sent},
                          {"probes_received", probes}, {"probes_unique", unique},      {"echoes_sent", echoes},
                          {"stats_requests", stats_requests}};
  };
  while (!stop.load()) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) continue;
    for (;;) {  // everything queued, then poll again
      sockaddr_in from{};
      socklen_t from_len = sizeof from;
      ssize_t n = ::recvfrom(fd, buf.data(), buf.size(), MSG_DONTWAIT, reinterpret_cast<sockaddr*>(&from), &from_len);
      if (n < 0) break;
      ++received;
      Header h;
      if (!decode(buf.data(), n, h)) continue;
      size_t reply_len = n;
      if (h.kind == kProbe) {
        ++probes;
        if (first_time(seen, h.seq)) ++unique;
        h.kind = kEcho;
        h.echo_id = static_cast<uint32_t>(echoes++);
        encode(h, buf.data());
      } else if (h.kind == kStatsRequest) {
        ++stats_requests;
        std::string body = stats().dump();
        h.kind = kStatsReply;
        encode(h, buf.data());
        std::memcpy(buf.data() + kHeader, body.data(), body.size());
        reply_len = kHeader + body.size();
      } else {
        continue;
      }
      if (::sendto(fd, buf.data(), reply_len, 0, reinterpret_cast<sockaddr*>(&from), from_len) ==
          static_cast<ssize_t>(reply_len))
        ++sent;
    }
  }
  ::close(fd);
  return stats();
}

}  // namespace rpclab::netem
