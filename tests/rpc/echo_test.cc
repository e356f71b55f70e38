// ECHO comes back byte for byte at every size a transport can carry, and a
// size it cannot carry fails with words that say so, not a crash.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "rpc_test_util.h"
#include "support/client_process.h"
#include "support/server_process.h"
#include "sunrpc/sunrpc_settings.h"

namespace rpclab::test {
namespace {


const size_t kSizes[] = {0, 12, 512, 8192, 16384, 65536, size_t{1} << 20};

std::string random_bytes(size_t size) {
  std::mt19937 rng(static_cast<uint32_t>(size));
  std::string bytes(size, '\0');
  for (char& c : bytes) c = static_cast<char>(rng());
  return bytes;
}

// One ECHO of `size` random bytes; fails the test unless they come back.
void expect_echoed(RpcClient& client, size_t size) {
  std::string payload = random_bytes(size), reply;
  CallStatus status = typed_call(client, Operation::kEcho, payload, &reply);
  ASSERT_TRUE(status.ok()) << size << " B: " << status.detail;
  ASSERT_EQ(reply.size(), size);
  ASSERT_TRUE(reply == payload) << size << " B came back different";
}

void expect_does_not_fit(RpcClient& client, size_t size, const std::string& words) {
  std::string reply;
  CallStatus status = typed_call(client, Operation::kEcho, random_bytes(size), &reply);
  EXPECT_EQ(status.kind, ErrorKind::kCannotCode) << size << " B";
  EXPECT_PRED_FORMAT2(testing::IsSubstring, words, status.detail) << size << " B";
}

class Echo : public testing::TestWithParam<std::string> {};

TEST_P(Echo, ByteExactAtEverySizeTheTransportCarries) {
  ServerProcess server(GetParam());
  ClientOptions options = client_options(GetParam(), server.port(), 10000);
  size_t max_payload = find_transport(GetParam())->client_settings(options).max_payload;
  auto client = connect_client(options);
  for (size_t size : kSizes) {
    if (size <= max_payload) {
      expect_echoed(*client, size);
    } else {
      ASSERT_TRUE(is_datagram(GetParam())) << "a stream transport should carry " << size << " B";
      expect_does_not_fit(*client, size, "does not fit in a UDP message of");
    }
  }
  EXPECT_EQ(server.stop().clients().size(), 0u);  // ECHO never touches the ledger
}

TEST_P(Echo, TheClientProgramChecksEveryReply) {
  TempDir dir;
  ServerProcess server(GetParam());
  ClientRun run = run_client({"--transport", GetParam(), "--server", server.address(), "--op", "echo", "--size",
                              "8192", "--calls", "200", "--timeout", "5000"},
                             dir);
  ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
  ASSERT_EQ(run.record.calls.size(), 200u);
  for (const CallEntry& call : run.record.calls) ASSERT_EQ(call.kind, ErrorKind::kOk) << run.record.detail(call);
  EXPECT_EQ(run.record.header["outcomes"]["ok"], 200);
}

INSTANTIATE_TEST_SUITE_P(Transports, Echo, testing::ValuesIn(all_transports()), param_name);

TEST(EchoLimits, SunrpcUdpDefaultBufferCarries8756Bytes) {
  ServerProcess server("sunrpc-udp");
  auto client = make_client("sunrpc-udp", server.port());
  expect_echoed(*client, 8756);
  expect_does_not_fit(*client, 8757, "does not fit in a UDP message of 8800 bytes");
  expect_echoed(*client, 12);  // the refusal left the handle usable
}

TEST(EchoLimits, SunrpcUdpWith64KiBBuffersCarries65460Bytes) {
  ServerProcess server(ServerSpec{"sunrpc-udp", {"--udp-bufsize", "65536"}});
  ClientOptions options = client_options("sunrpc-udp", server.port());
  options.settings.set(sunrpc::kUdpBufsize, 65536);
  auto client = connect_client(options);
  expect_echoed(*client, 16384);
  expect_echoed(*client, 65460);
  expect_does_not_fit(*client, 65461, "does not fit in a UDP message of 65536 bytes");
}

TEST(EchoLimits, SunrpcUdpBufferOnOneSideOnlyIsACleanError) {
  ServerProcess server("sunrpc-udp");  // 8800-byte buffer
  ClientOptions options = client_options("sunrpc-udp", server.port(), 2000);
  options.settings.set(sunrpc::kUdpBufsize, 65536);
  auto client = connect_client(options);
  std::string reply;
  CallStatus status = typed_call(*client, Operation::kEcho, random_bytes(16384), &reply);
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.kind, ErrorKind::kOk);
  EXPECT_TRUE(server.running()) << server.log();
  expect_echoed(*client, 12);
}

TEST(EchoLimits, RawUdpCarriesOneDatagramMinusItsHeader) {
  ServerProcess server("raw-udp");
  auto client = make_client("raw-udp", server.port());
  expect_echoed(*client, 65498);
  expect_does_not_fit(*client, 65499, "does not fit in a UDP message of 65507 bytes");
}

// The grpc row's sync-API server (--grpc-sync-server, kept beside the
// default async one for docs/speed.md's comparison) carries what the async
// one does, up to the 16 MiB ECHO bound.
TEST(EchoLimits, GrpcSyncServerCarriesWhatTheAsyncOneDoes) {
  for (bool sync : {false, true}) {
    ServerSpec spec{"grpc"};
    if (sync) spec.args = {"--grpc-sync-server"};
    ServerProcess server(spec);
    auto client = make_client("grpc", server.port());
    for (size_t size : {size_t{0}, size_t{12}, size_t{1} << 20, size_t{16} << 20}) expect_echoed(*client, size);
    EXPECT_TRUE(server.running()) << server.log();
  }
}

// The server's threads named `name` (the async gRPC server names its
// completion-queue threads rpclab-cq; gRPC starts threads of its own).
size_t threads_named(pid_t pid, const std::string& name) {
  size_t n = 0;
  for (const auto& task : std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task")) {
    std::ifstream comm(task.path() / "comm");
    std::string got;
    if (std::getline(comm, got) && got == name) ++n;
  }
  return n;
}

// --grpc-server-threads N: N completion-queue threads (the default: one),
// serving clients that call at once.
TEST(EchoLimits, GrpcAsyncServerRunsTheThreadsAskedForAndServesClientsAtOnce) {
  ServerProcess one(ServerSpec{"grpc"});
  ServerSpec spec{"grpc"};
  spec.args = {"--grpc-server-threads", "3"};
  ServerProcess three(spec);
  EXPECT_EQ(threads_named(one.pid(), "rpclab-cq"), 1u);
  EXPECT_EQ(threads_named(three.pid(), "rpclab-cq"), 3u);

  constexpr int kClients = 4, kCalls = 200;
  std::atomic<int> echoed{0};
  std::vector<std::thread> clients;
  for (int c = 0; c < kClients; ++c)
    clients.emplace_back([&three, &echoed] {
      auto mine = make_client("grpc", three.port());
      std::string payload = random_bytes(512), reply;
      for (int i = 0; i < kCalls; ++i)
        if (typed_call(*mine, Operation::kEcho, payload, &reply).ok() && reply == payload) ++echoed;
    });
  for (auto& t : clients) t.join();
  EXPECT_EQ(echoed.load(), kClients * kCalls);
  EXPECT_TRUE(three.running()) << three.log();
}

}  // namespace
}  // namespace rpclab::test
