// What the xmlrpc and jsonrpc rows say their library does by itself, shown
// on real clients: libcurl, under both, sends a request again on a new
// connection when a kept-alive connection closes before any byte of the
// reply (lib/transfer.c, Curl_retry_request, up to 5 times; curl 7.88
// cannot turn it off, CURLOPT_FORBID_RETRY_ON_REUSE is 8.16's). A server
// that ran the request and closed before answering then runs it twice
// while the application made one call, one attempt: the 2 JSON-RPC calls
// run twice behind Caddy's reloads (docs/results/dependability.md).
//
// The server here is a few lines of HTTP/1.1 in the test: it answers
// every request but the second with a canned reply, and closes the second
// one's connection after reading it whole, as a server reloaded or reset
// between execution and reply does. The client is the real rpclab-client.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <map>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "support/client_process.h"
#include "support/temp_dir.h"
#include "transport/retry_policy.h"
#include "transport/transport.h"

namespace rpclab::test {
namespace {

struct SeenRequest {
  int connection = 0;  // 1 for the first accepted
  std::string body;
};

// Loopback HTTP/1.1 server on one thread; request number `close_at`
// (1-based) is read whole and its connection closed with no reply.
class ClosingHttpServer {
 public:
  ClosingHttpServer(int close_at, std::string (*reply_to)(const std::string& body))
      : close_at_(close_at), reply_to_(reply_to) {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    EXPECT_EQ(::bind(listen_fd_, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    EXPECT_EQ(::listen(listen_fd_, 16), 0);
    EXPECT_EQ(::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&a), &len), 0);
    port_ = ntohs(a.sin_port);
    thread_ = std::thread([this] { serve(); });
  }
  ~ClosingHttpServer() {
    stop();
    for (auto& [fd, c] : conns_) ::close(fd);
    ::close(listen_fd_);
  }
  int port() const { return port_; }
  // Every request, in arrival order; stops the server (call it after the client has exited).
  const std::vector<SeenRequest>& requests() {
    stop();
    return requests_;
  }

 private:
  struct Conn {
    int number = 0;
    std::string in;
  };

  void stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }

  void serve() {
    while (!stop_) {
      std::vector<pollfd> fds = {{listen_fd_, POLLIN, 0}};
      for (auto& [fd, c] : conns_) fds.push_back({fd, POLLIN, 0});
      if (::poll(fds.data(), fds.size(), 20) <= 0) continue;  // 20 ms: how soon it sees stop_
      if (fds[0].revents & POLLIN) {
        int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
        if (fd >= 0) conns_[fd].number = ++accepted_;
      }
      for (size_t i = 1; i < fds.size(); ++i)
        if (fds[i].revents) read_from(fds[i].fd);
    }
  }

  void read_from(int fd) {
    char buf[65536];
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n <= 0) {
      ::close(fd);
      conns_.erase(fd);
      return;
    }
    Conn& c = conns_[fd];
    c.in.append(buf, static_cast<size_t>(n));
    for (;;) {
      size_t head_end = c.in.find("\r\n\r\n");
      if (head_end == std::string::npos) return;
      std::smatch m;
      std::string head = c.in.substr(0, head_end);
      size_t length = 0;
      if (std::regex_search(head, m, std::regex("content-length: *([0-9]+)", std::regex::icase)))
        length = std::stoul(m[1]);
      if (c.in.size() < head_end + 4 + length) return;
      std::string body = c.in.substr(head_end + 4, length);
      c.in.erase(0, head_end + 4 + length);
      requests_.push_back({c.number, body});
      if (static_cast<int>(requests_.size()) == close_at_) {  // ran it; gone before the reply
        ::close(fd);
        conns_.erase(fd);
        return;
      }
      std::string reply = reply_to_(body);
      std::string out = "HTTP/1.1 200 OK\r\nContent-Type: text/xml\r\nContent-Length: " +
                        std::to_string(reply.size()) + "\r\n\r\n" + reply;
      EXPECT_EQ(::write(fd, out.data(), out.size()), static_cast<ssize_t>(out.size()));
    }
  }

  int close_at_;
  std::string (*reply_to_)(const std::string&);
  int listen_fd_ = -1, port_ = 0, accepted_ = 0;
  std::map<int, Conn> conns_;
  std::vector<SeenRequest> requests_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// The NULL call's answer, as each library reads it.
std::string xmlrpc_reply(const std::string&) {
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\r\n<methodResponse><params><param><value><i4>0</i4>"
         "</value></param></params></methodResponse>\r\n";
}
std::string jsonrpc_reply(const std::string& body) {
  std::smatch m;
  std::string id = std::regex_search(body, m, std::regex("\"id\" *: *([0-9]+)")) ? m[1].str() : "1";
  return "{\"id\":" + id + ",\"jsonrpc\":\"2.0\",\"result\":null}\n";
}

struct CurlRow {
  const char* transport;
  std::string (*reply_to)(const std::string&);
};

class CurlResend : public ::testing::TestWithParam<CurlRow> {};

TEST_P(CurlResend, ARequestWhoseKeptConnectionClosesBeforeTheReplyIsSentAgainOnANewOne) {
  const CurlRow& row = GetParam();
  const TransportRow* t = find_transport(row.transport);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->library_retry.kind, LibraryRetry::kAlwaysOn)
      << row.transport << "'s row must say its library resends by itself: " << t->library_retry.what;
  EXPECT_NE(std::string(t->library_retry.what).find("curl"), std::string::npos) << t->library_retry.what;

  ClosingHttpServer server(2, row.reply_to);
  TempDir dir;
  ClientRun run = run_client({"--transport", row.transport, "--server", "127.0.0.1:" + std::to_string(server.port()),
                              "--op", "null", "--calls", "2", "--connect", "persistent", "--timeout", "5000"},
                             dir);
  ASSERT_EQ(run.process.exit_code, 0) << run.process.out << run.process.err;
  ASSERT_EQ(run.record.calls.size(), 2u);
  for (const CallEntry& c : run.record.calls) {
    EXPECT_EQ(c.kind, ErrorKind::kOk) << run.record.detail(c);
    EXPECT_EQ(c.attempts, 1u) << "the application made each call once";
  }
  const std::vector<SeenRequest>& seen = server.requests();
  ASSERT_EQ(seen.size(), 3u) << "two calls, and the second sent again by the library";
  EXPECT_EQ(seen[0].connection, 1);
  EXPECT_EQ(seen[1].connection, 1) << "the second call went out on the kept connection";
  EXPECT_EQ(seen[2].connection, 2) << "and again on a new one";
  EXPECT_EQ(seen[2].body, seen[1].body) << "the same request, byte for byte";
}

INSTANTIATE_TEST_SUITE_P(Rows, CurlResend,
                         ::testing::Values(CurlRow{"xmlrpc", xmlrpc_reply}, CurlRow{"jsonrpc", jsonrpc_reply}),
                         [](const auto& info) { return std::string(info.param.transport); });

}  // namespace
}  // namespace rpclab::test
