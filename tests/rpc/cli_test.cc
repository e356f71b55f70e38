// The programs' command lines: a bad flag exits 2 and names the flag, a
// port already taken exits 3 and says so; nothing is run in either case.
#include <gtest/gtest.h>

#include <algorithm>

#include "rpc_test_util.h"
#include "support/process.h"
#include "support/server_process.h"

namespace rpclab::test {
namespace {


constexpr int kExitUsage = 2;  // src/core/cli_support.h
constexpr int kExitSetup = 3;

struct BadFlags {
  std::string program;
  std::vector<std::string> args;
  std::string named;  // the flag the message must name
};

std::ostream& operator<<(std::ostream& os, const BadFlags& c) {
  os << c.program;
  for (const std::string& a : c.args) os << ' ' << a;
  return os;
}

// A client command line that is fine but for `changes`: a flag given here
// replaces the default one, a new flag is added (a flag given twice would
// be refused for a different reason).
std::vector<std::string> client_args(const std::vector<std::pair<std::string, std::string>>& changes) {
  std::vector<std::pair<std::string, std::string>> flags = {
      {"--transport", "raw-udp"}, {"--server", "127.0.0.1:9"}, {"--op", "echo"}};
  for (const auto& change : changes) {
    auto same = std::find_if(flags.begin(), flags.end(), [&](const auto& f) { return f.first == change.first; });
    if (same != flags.end())
      same->second = change.second;
    else
      flags.push_back(change);
  }
  std::vector<std::string> args;
  for (const auto& [flag, value] : flags) {
    args.push_back(flag);
    if (!value.empty()) args.push_back(value);
  }
  return args;
}

class BadFlag : public testing::TestWithParam<BadFlags> {};

TEST_P(BadFlag, ExitsTwoNamingTheFlag) {
  std::vector<std::string> argv = {bin(GetParam().program)};
  argv.insert(argv.end(), GetParam().args.begin(), GetParam().args.end());
  ProcessResult result = run_program(argv, std::chrono::seconds(10));
  EXPECT_EQ(result.exit_code, kExitUsage) << result.err;
  EXPECT_PRED_FORMAT2(testing::IsSubstring, GetParam().named, result.err);
}

INSTANTIATE_TEST_SUITE_P(
    Programs, BadFlag,
    testing::Values(
        BadFlags{"rpclab-server", {"--transport", "carrier-pigeon"}, "--transport"},
        BadFlags{"rpclab-server", {}, "--transport"},
        BadFlags{"rpclab-server", {"--transport", "raw-tcp", "--listen", "localhost"}, "--listen"},
        BadFlags{"rpclab-server", {"--transport", "raw-tcp", "--listen", "127.0.0.1:70000"}, "--listen"},
        BadFlags{"rpclab-server", {"--transport", "raw-tcp", "--frobnicate"}, "--frobnicate"},
        BadFlags{"rpclab-server", {"--transport", "sunrpc-udp", "--udp-bufsize", "100"}, "--udp-bufsize"},
        BadFlags{"rpclab-client", client_args({{"--transport", "carrier-pigeon"}}), "--transport"},
        BadFlags{"rpclab-client", client_args({{"--server", "127.0.0.1"}}), "--server"},
        BadFlags{"rpclab-client", client_args({{"--server", "127.0.0.1:x"}}), "--server"},
        BadFlags{"rpclab-client", client_args({{"--server", ":7000"}}), "--server"},
        BadFlags{"rpclab-client", client_args({{"--calls", "0"}}), "--calls"},
        BadFlags{"rpclab-client", client_args({{"--calls", "-5"}}), "--calls"},
        BadFlags{"rpclab-client", client_args({{"--calls", "many"}}), "--calls"},
        BadFlags{"rpclab-client", client_args({{"--op", "dance"}}), "--op"},
        BadFlags{"rpclab-client", client_args({{"--connect", "sometimes"}}), "--connect"},
        BadFlags{"rpclab-client", client_args({{"--size", "65499"}}), "--size"},  // raw-udp's limit is 65498
        BadFlags{"rpclab-client", client_args({{"--transport", "sunrpc-udp"}, {"--size", "8757"}}), "--size"},
        BadFlags{"rpclab-client", client_args({{"--timeout", "0"}}), "--timeout"},
        BadFlags{"rpclab-client", client_args({{"--frobnicate", ""}}), "--frobnicate"}));

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
