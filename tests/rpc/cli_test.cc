// For every transport: a port already taken (exit 3, a message naming the
// address, and the server already there keeps serving), and a host name
// that does not resolve (exit 3 from client and server alike, whatever the
// connection mode, before any call is made). Every other bad input is in
// one table: tests/hardening/bad_input_test.cc.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "client/call_record.h"
#include "common/sanitizer.h"
#include "rpc_test_util.h"
#include "support/process.h"
#include "support/server_process.h"
#include "support/temp_dir.h"
#include "sunrpc/sunrpc_settings.h"

namespace rpclab::test {
namespace {

constexpr int kExitSetup = 3;  // src/common/cli_support.h

class PortInUse : public testing::TestWithParam<std::string> {};

TEST_P(PortInUse, ExitsThreeWithAClearMessage) {
  ServerProcess first(GetParam());
  ProcessResult second = run_program(
      {bin("rpclab-server"), "--transport", GetParam(), "--listen", first.address()}, std::chrono::seconds(20));
  EXPECT_EQ(second.exit_code, kExitSetup) << second.err;
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "in use", second.err);
  EXPECT_PRED_FORMAT2(testing::IsSubstring, first.address(), second.err);
  EXPECT_TRUE(first.running());
}

INSTANTIATE_TEST_SUITE_P(Transports, PortInUse, testing::ValuesIn(all_transports()), param_name);

// A name under .invalid never resolves (RFC 6761). A transport that turned
// it into call outcomes would exit 0 with a record of failed calls.
constexpr const char* kNoSuchHost = "no.such.host.invalid";

class UnresolvableHost : public testing::TestWithParam<std::string> {};

// --rpcbind resolves the host before asking rpcbind; it is tried only on
// the rows that take it (the others refuse the flag with exit 2).
std::vector<bool> rpcbind_settings(const std::string& transport) {
  if (row_of(transport).takes(sunrpc::kRpcbind, Side::kBoth)) return {false, true};
  return {false};
}

TEST_P(UnresolvableHost, ClientExitsThreeNamingTheHostAndWritesNoRecord) {
  TempDir dir;
  for (std::string connect : {"persistent", "per-call"})
    for (bool rpcbind : rpcbind_settings(GetParam())) {
      std::vector<std::string> argv = {bin("rpclab-client"), "--transport", GetParam(), "--server",
                                       std::string(kNoSuchHost) + ":5", "--calls", "1", "--connect", connect,
                                       "--record", dir.file("record")};
      if (rpcbind) argv.push_back("--rpcbind");
      SCOPED_TRACE(GetParam() + " --connect " + connect + (rpcbind ? " --rpcbind" : ""));
      ProcessResult r = run_program(argv, std::chrono::seconds(30));
      EXPECT_EQ(r.exit_code, kExitSetup) << r.err;
      EXPECT_PRED_FORMAT2(testing::IsSubstring, std::string("cannot resolve host '") + kNoSuchHost + "'", r.err);
      EXPECT_FALSE(std::filesystem::exists(dir.file("record"))) << "a record of calls that were never made";
    }
}

TEST_P(UnresolvableHost, ServerExitsThreeNamingTheHost) {
  ProcessResult r = run_program({bin("rpclab-server"), "--transport", GetParam(), "--listen",
                                 std::string(kNoSuchHost) + ":0"}, std::chrono::seconds(30));
  EXPECT_EQ(r.exit_code, kExitSetup) << r.err;
  EXPECT_PRED_FORMAT2(testing::IsSubstring, std::string("cannot resolve host '") + kNoSuchHost + "'", r.err);
}

INSTANTIATE_TEST_SUITE_P(Transports, UnresolvableHost, testing::ValuesIn(all_transports()), param_name);

// Nothing listens on port 1: every call fails. The client says so by its
// exit code (1, as iperf3 does), so a script that gates on it does not
// pass, and still writes its record: failed calls are its outcomes, and
// the harness reads them (a trial under a partition is a measurement).
class NoServer : public testing::TestWithParam<std::string> {};

TEST_P(NoServer, ClientExitsOneWhenNoCallSucceededAndStillWritesItsRecord) {
  TempDir dir;
  ProcessResult r = run_program({bin("rpclab-client"), "--transport", GetParam(), "--server", "127.0.0.1:1",
                                 "--calls", "3", "--op", "null", "--timeout", "500", "--record", dir.file("record")},
                                std::chrono::seconds(30));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "no call succeeded", r.err);
  ASSERT_TRUE(std::filesystem::exists(dir.file("record"))) << r.err;
  EXPECT_EQ(CallRecord::read_file(dir.file("record")).calls.size(), 3u);
}

INSTANTIATE_TEST_SUITE_P(Transports, NoServer, testing::ValuesIn(all_transports()), param_name);

TEST(ClientHelp, SaysWhatItsExitStatusMeans) {
  ProcessResult r = run_program({bin("rpclab-client"), "--help"}, std::chrono::seconds(10));
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "Exit status: 0 when at least one call succeeded; 1 when none did",
                      r.out);
}

// rpclab-client and rpclab-server load a transport's RPC stack only when
// one of its rows is used (src/transport/transport_module.h): linked with
// every stack, a client spent about 55 ms in the dynamic linker before its
// first call, and the speed experiment starts one for every trial.
std::string text_of(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(TransportModules, AProgramLoadsOnlyTheStackOfItsTransport) {
  ServerProcess server("sunrpc-tcp");
  std::string maps = text_of("/proc/" + std::to_string(server.pid()) + "/maps");
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "rpclab-transport-sunrpc.so", maps);
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "libtirpc", maps);
  for (const char* other : {"libgrpc", "libcurl", "libxmlrpc", "libjsonrpccpp", "libprotobuf"})
    EXPECT_PRED_FORMAT2(testing::IsNotSubstring, other, maps);

  TempDir dir;
  // LD_DEBUG=files: the dynamic linker names on stderr each object it loads.
  ProcessResult r = run_program({"env", "LD_DEBUG=files", bin("rpclab-client"), "--transport", "sunrpc-tcp",
                                 "--server", server.address(), "--calls", "3", "--record", dir.file("record")},
                                std::chrono::seconds(30));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "rpclab-transport-sunrpc.so", r.err);
  for (const char* other : {"libgrpc", "libcurl", "libxmlrpc", "libjsonrpccpp", "libprotobuf"})
    EXPECT_PRED_FORMAT2(testing::IsNotSubstring, other, r.err);

  ServerProcess grpc("grpc");
  std::string grpc_maps = text_of("/proc/" + std::to_string(grpc.pid()) + "/maps");
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "rpclab-transport-grpc.so", grpc_maps);
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "libgrpc", grpc_maps);
  // Under AddressSanitizer the programs load libtirpc at start
  // (src/CMakeLists.txt says why).
  if (!RPCLAB_ASAN) EXPECT_PRED_FORMAT2(testing::IsNotSubstring, "libtirpc", grpc_maps);
}

// A copy of rpclab-client without its transports/ folder says which file
// it could not load and how to get it, as a setup error (exit 3).
TEST(TransportModules, AMissingModuleIsASetupErrorNamingTheFile) {
  TempDir dir;
  std::filesystem::copy_file(bin("rpclab-client"), dir.file("rpclab-client"));
  ProcessResult r = run_program({dir.file("rpclab-client"), "--transport", "raw-tcp", "--server", "127.0.0.1:1",
                                 "--calls", "1", "--record", dir.file("record")},
                                std::chrono::seconds(30));
  EXPECT_EQ(r.exit_code, kExitSetup) << r.err;
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "cannot load transport module " + dir.file("transports") +
                      "/rpclab-transport-raw.so", r.err);
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "make build builds it", r.err);
}


// A kept client (--trials-from-stdin, as rpclab speed keeps a cell's):
// one process, one trial per line, each with its own record, warm-up and
// answer line; it leaves at the end of its input. Its record and gate come
// on the line only.
TEST(KeptClient, RunsATrialPerLineInOneProcess) {
  TempDir dir;
  ServerProcess server("raw-tcp");
  std::string lines = "{\"record\": \"" + dir.file("one.rec") + "\"}\n{\"record\": \"" + dir.file("two.rec") +
                      "\"}\n";
  ProcessResult r = run_program({"sh", "-c", "printf '%s' \"$1\" | \"$2\" --transport raw-tcp --server \"$3\" "
                                 "--op echo --size 12 --calls 5 --warmup 3 --trials-from-stdin",
                                 "sh", lines, bin("rpclab-client"), server.address()},
                                std::chrono::seconds(30));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "rpclab-trial-done 0\nrpclab-trial-done 0\n");
  CallRecord one = CallRecord::read_file(dir.file("one.rec")), two = CallRecord::read_file(dir.file("two.rec"));
  EXPECT_EQ(one.calls.size(), 5u);
  EXPECT_EQ(two.calls.size(), 5u);
  EXPECT_EQ(one.header["pid"], two.header["pid"]) << "both trials ran in the one process";
  EXPECT_EQ(two.header["warmup"], 3u);
  EXPECT_LE(one.header["end_realtime_ns"].get<int64_t>(), two.header["start_realtime_ns"].get<int64_t>());

  ProcessResult both = run_program({bin("rpclab-client"), "--transport", "raw-tcp", "--server", server.address(),
                                    "--trials-from-stdin", "--record", dir.file("three.rec")},
                                   std::chrono::seconds(30));
  EXPECT_EQ(both.exit_code, 2) << both.err;
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "each trial's line names its record", both.err);
  ProcessResult garbled = run_program({"sh", "-c", "echo 'not a trial' | \"$1\" --transport raw-tcp --server \"$2\" "
                                       "--trials-from-stdin", "sh", bin("rpclab-client"), server.address()},
                                      std::chrono::seconds(30));
  EXPECT_EQ(garbled.exit_code, 2) << garbled.err;
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "'not a trial' is not a trial", garbled.err);
}

}  // namespace
}  // namespace rpclab::test
