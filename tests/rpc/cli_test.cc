// A port already taken, for every transport: exit 3, a message naming the
// address, and the server already there keeps serving. Every other bad
// input is in one table: tests/hardening/bad_input_test.cc.
#include <gtest/gtest.h>

#include "rpc_test_util.h"
#include "support/process.h"
#include "support/server_process.h"

namespace rpclab::test {
namespace {

constexpr int kExitSetup = 3;  // src/core/cli_support.h

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

}  // namespace
}  // namespace rpclab::test
