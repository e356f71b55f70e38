// For every transport: a port already taken (exit 3, a message naming the
// address, and the server already there keeps serving), and a host name
// that does not resolve (exit 3 from client and server alike, whatever the
// connection mode, before any call is made). Every other bad input is in
// one table: tests/hardening/bad_input_test.cc.
#include <gtest/gtest.h>

#include <filesystem>

#include "client/call_record.h"
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

}  // namespace
}  // namespace rpclab::test
