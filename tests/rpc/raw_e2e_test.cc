// The floor transports' own promises, end to end: refusals come back as
// ERROR replies, a length past the bound drops the connection, requests
// may be pipelined, and the clients never retransmit and never take a late
// reply for the current call.
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <future>

#include "common/inet.h"
#include "raw/raw_frame.h"
#include "rpc_test_util.h"
#include "support/server_process.h"
#include "support/wire.h"

namespace rpclab::test {
namespace {

using raw::Proc;

// Reads whole frames from a stream socket until `count` arrived.
std::vector<std::string> read_frames(int fd, size_t count) {
  raw::FrameDecoder decoder;
  std::vector<std::string> frames;
  while (frames.size() < count) {
    std::string bytes;
    if (recv_within(fd, &bytes, 5000) <= 0) break;
    decoder.feed(bytes);
    raw::FrameView view;
    while (decoder.next(&view) == raw::DecodeResult::kFrame)
      frames.push_back(raw::encode_frame(view.call_id, static_cast<Proc>(view.proc), view.body));
  }
  return frames;
}

TEST(RawTcp, PipelinedRequestsAreAnsweredInOrder) {
  ServerProcess server("raw-tcp");
  int fd = tcp_connect(server.port());
  std::string burst;
  for (uint32_t i = 0; i < 50; ++i) burst += raw::encode_frame(i, Proc::kEcho, std::to_string(i));
  ASSERT_EQ(::send(fd, burst.data(), burst.size(), 0), static_cast<ssize_t>(burst.size()));
  std::vector<std::string> replies = read_frames(fd, 50);
  ASSERT_EQ(replies.size(), 50u);
  for (uint32_t i = 0; i < 50; ++i) EXPECT_EQ(replies[i], raw::encode_frame(i, Proc::kEcho, std::to_string(i)));
  ::close(fd);
}

TEST(RawTcp, ARefusedRequestGetsAnErrorAndTheConnectionStaysUsable) {
  ServerProcess server("raw-tcp");
  int fd = tcp_connect(server.port());
  std::string requests = raw::encode_frame(5, Proc(9), "") + raw::encode_frame(6, Proc::kNull, "");
  ::send(fd, requests.data(), requests.size(), 0);
  std::vector<std::string> replies = read_frames(fd, 2);
  ASSERT_EQ(replies.size(), 2u);
  EXPECT_EQ(replies[0], raw::encode_frame(5, Proc::kError, "unknown procedure 9"));
  EXPECT_EQ(replies[1], raw::encode_frame(6, Proc::kNull, ""));
  ::close(fd);
}

TEST(RawTcp, ALengthPastTheBoundClosesTheConnection) {
  ServerProcess server("raw-tcp");
  int fd = tcp_connect(server.port());
  send_some(fd, be32(raw::kMaxBody + 1) + be32(1) + "\2");
  std::string ignored;
  EXPECT_LE(recv_within(fd, &ignored, 5000), 0) << "the server should have dropped the stream";
  ::close(fd);
  EXPECT_TRUE(server.running());
}

TEST(RawUdp, ARefusedRequestGetsAnErrorAndGarbageGetsSilence) {
  ServerProcess server("raw-udp");
  int fd = udp_socket();
  udp_send(fd, server.port(), raw::encode_frame(1, Proc::kEcho, "abc") + "extra");  // length disagrees
  udp_send(fd, server.port(), raw::encode_frame(2, Proc::kNext, "short"));
  std::string reply;
  ASSERT_GT(recv_within(fd, &reply, 5000), 0);
  EXPECT_EQ(reply, raw::encode_frame(2, Proc::kError, "NEXT body must be 8 bytes, got 5"));
  reply.clear();
  EXPECT_EQ(recv_within(fd, &reply, 200), -1) << "garbage must not be answered";
  ::close(fd);
}

// A UDP socket in the test that plays a server which answers as told.
struct ScriptedPeer {
  ScriptedPeer() : fd(udp_socket()) {
    sockaddr_in sin = resolve_ipv4("127.0.0.1", 0);
    ::bind(fd, reinterpret_cast<sockaddr*>(&sin), sizeof sin);
    port = bound_port(fd);
  }
  ~ScriptedPeer() { ::close(fd); }

  // The next request, and where it came from.
  raw::FrameView receive(std::string* storage, sockaddr_in* from, int timeout_ms = 2000) {
    storage->assign(65536, '\0');
    socklen_t len = sizeof *from;
    pollfd p{fd, POLLIN, 0};
    raw::FrameView view;
    if (::poll(&p, 1, timeout_ms) <= 0) return view;
    ssize_t n = ::recvfrom(fd, storage->data(), storage->size(), 0, reinterpret_cast<sockaddr*>(from), &len);
    storage->resize(n > 0 ? static_cast<size_t>(n) : 0);
    raw::decode_datagram(*storage, &view);
    return view;
  }
  void answer(const sockaddr_in& to, uint32_t call_id, const std::string& body) {
    std::string frame = raw::encode_frame(call_id, Proc::kEcho, body);
    ::sendto(fd, frame.data(), frame.size(), 0, reinterpret_cast<const sockaddr*>(&to), sizeof to);
  }

  int fd;
  uint16_t port;
};

TEST(RawUdp, TheClientNeverRetransmits) {
  ScriptedPeer peer;
  auto client = make_client("raw-udp", peer.port, 300);
  std::string reply;
  CallStatus status = typed_call(*client, Operation::kEcho, std::string("lost"), &reply);
  EXPECT_EQ(status.kind, ErrorKind::kTimeout) << status.detail;
  std::string storage;
  sockaddr_in from{};
  EXPECT_EQ(peer.receive(&storage, &from, 500).body, "lost");
  EXPECT_TRUE(peer.receive(&storage, &from, 500).body.empty()) << "the client sent the request again";
}

TEST(RawUdp, ALateReplyIsNotTakenForTheCurrentCall) {
  ScriptedPeer peer;
  auto client = make_client("raw-udp", peer.port, 300);
  std::string reply, storage;
  sockaddr_in from{};
  EXPECT_EQ(typed_call(*client, Operation::kEcho, std::string("first"), &reply).kind, ErrorKind::kTimeout);
  uint32_t first_id = peer.receive(&storage, &from).call_id;

  auto second = std::async(std::launch::async, [&] { return typed_call(*client, Operation::kEcho, std::string("second"), &reply); });
  raw::FrameView request = peer.receive(&storage, &from);
  ASSERT_EQ(request.body, "second");
  peer.answer(from, first_id, "first");  // the late reply arrives first
  peer.answer(from, request.call_id, "second");
  CallStatus status = second.get();
  EXPECT_TRUE(status.ok()) << status.detail;
  EXPECT_EQ(reply, "second");
}

// A port nothing listens on (a moment ago it was ours, over UDP).
uint16_t closed_port() {
  ScriptedPeer peer;
  return peer.port;
}

TEST(RawUdp, NothingListeningIsUnavailableNotATimeout) {
  NextReply reply;
  CallStatus status = typed_call(*make_client("raw-udp", closed_port(), 2000), Operation::kNext, NextRequest{1, 0}, &reply);
  EXPECT_EQ(status.kind, ErrorKind::kUnavailable) << status.detail;  // the kernel's ICMP port unreachable
}

TEST(RawTcp, NothingListeningIsUnavailable) {
  NextReply reply;
  CallStatus status = typed_call(*make_client("raw-tcp", closed_port(), 2000), Operation::kNext, NextRequest{1, 0}, &reply);
  EXPECT_EQ(status.kind, ErrorKind::kUnavailable) << status.detail;
}

TEST(RawTcp, TheClientSkipsAReplyLeftOverFromATimeout) {
  int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in sin = resolve_ipv4("127.0.0.1", 0);
  ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&sin), sizeof sin), 0);
  ::listen(listener, 1);
  auto client = make_client("raw-tcp", bound_port(listener), 300);
  std::string reply;
  auto first = std::async(std::launch::async, [&] { return typed_call(*client, Operation::kEcho, std::string("first"), &reply); });
  int conn = ::accept(listener, nullptr, nullptr);  // the first call connects
  EXPECT_EQ(first.get().kind, ErrorKind::kTimeout);

  auto second = std::async(std::launch::async, [&] { return typed_call(*client, Operation::kEcho, std::string("second"), &reply); });
  std::vector<std::string> requests = read_frames(conn, 2);
  ASSERT_EQ(requests.size(), 2u);
  std::string answers = raw::encode_frame(1, Proc::kEcho, "first") + raw::encode_frame(2, Proc::kEcho, "second");
  ::send(conn, answers.data(), answers.size(), 0);
  CallStatus status = second.get();
  EXPECT_TRUE(status.ok()) << status.detail;
  EXPECT_EQ(reply, "second");
  ::close(conn);
  ::close(listener);
}

}  // namespace
}  // namespace rpclab::test
