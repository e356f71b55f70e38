// Allman's four operations end to end on every transport over loopback:
// each result checked here (a wrong log is a failure, not a speed), a size
// the transport cannot carry refused with words that say so, and input
// with no defined result (ops/allman.h) refused without stopping the
// server. Below them, the arithmetic and the checks themselves.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ops/allman.h"
#include "server/server_core.h"
#include "rpc_test_util.h"
#include "support/client_process.h"
#include "support/server_process.h"

namespace rpclab::test {
namespace {

// 50,000 is Allman's N; 1000 fits sunrpc-udp's default 8800-byte buffer.
const size_t kCounts[] = {1, 1000, 50000};

ClientOptions options_for(const std::string& transport, uint16_t port) {
  ClientOptions options = client_options(transport, port, 20000);
  if (row_of(transport).takes(kTcpNodelay, Side::kClient)) options.settings.set_on(kTcpNodelay);
  return options;
}

void expect_too_big(const CallStatus& status, size_t n) {
  EXPECT_EQ(status.kind, ErrorKind::kCannotCode) << n << " doubles";
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "does not fit", status.detail) << n << " doubles";
}

class Allman : public testing::TestWithParam<std::string> {
 protected:
  Allman() : server_(ServerSpec{GetParam(), nodelay_flag(GetParam())}) {
    ClientOptions options = options_for(GetParam(), server_.port());
    max_payload_ = row_of(GetParam()).client_settings(options).max_payload;
    client_ = connect_client(options);
  }
  bool fits(size_t n) const { return n * sizeof(double) <= max_payload_; }

  ServerProcess server_;
  size_t max_payload_ = 0;
  std::unique_ptr<RpcClient> client_;
};

TEST_P(Allman, IsPrimeAnswersRight) {
  for (int32_t n : {kAllmanPrime, kAllmanPrime + 2, 2, 1, -7, 2147483647}) {
    bool prime = !allman_is_prime(n);
    CallStatus status = typed_call(*client_, Operation::kIsPrime, n, &prime);
    ASSERT_TRUE(status.ok()) << n << ": " << status.detail;
    EXPECT_EQ(prime, allman_is_prime(n)) << n;
  }
}

TEST_P(Allman, AverageAnswersRightAtEverySizeThatFits) {
  for (size_t n : kCounts) {
    std::vector<double> values = allman_inputs(n, 1);
    double mean = -1;
    CallStatus status = typed_call(*client_, Operation::kAverage, values, &mean);
    if (!fits(n)) {
      expect_too_big(status, n);
      continue;
    }
    ASSERT_TRUE(status.ok()) << n << ": " << status.detail;
    EXPECT_EQ(allman_check_average(values, mean), "") << n << " doubles";
  }
}

TEST_P(Allman, GetRandNumsGivesTheCountAskedInZeroToOne) {
  for (size_t n : kCounts) {
    std::vector<double> values;
    CallStatus status = typed_call(*client_, Operation::kGetRandNums, static_cast<int32_t>(n), &values);
    if (!fits(n)) {
      expect_too_big(status, n);
      continue;
    }
    ASSERT_TRUE(status.ok()) << n << ": " << status.detail;
    EXPECT_EQ(allman_check_rand(n, values), "") << n << " doubles";
  }
}

TEST_P(Allman, LogTransformAnswersRightAtEverySizeThatFits) {
  for (size_t n : kCounts) {
    std::vector<double> values = allman_inputs(n, 2), logs;
    CallStatus status = typed_call(*client_, Operation::kLogTransform, values, &logs);
    if (!fits(n)) {
      expect_too_big(status, n);
      continue;
    }
    ASSERT_TRUE(status.ok()) << n << ": " << status.detail;
    EXPECT_EQ(allman_check_log(values, logs), "") << n << " doubles";
  }
}

// Refused the same way on every transport (kCannotCode: the transport's
// "invalid argument"), and the server goes on serving.
TEST_P(Allman, InputWithNoDefinedResultIsRefused) {
  std::vector<double> logs;
  double mean = 0;
  for (const std::vector<double>& bad : {std::vector<double>{1.0, -1.0}, std::vector<double>{0.0}}) {
    CallStatus status = typed_call(*client_, Operation::kLogTransform, bad, &logs);
    EXPECT_EQ(status.kind, ErrorKind::kCannotCode) << bad[1 % bad.size()] << ": " << status.detail;
  }
  EXPECT_EQ(typed_call(*client_, Operation::kAverage, std::vector<double>{}, &mean).kind, ErrorKind::kCannotCode);
  std::vector<double> values;
  EXPECT_EQ(typed_call(*client_, Operation::kGetRandNums, -1, &values).kind, ErrorKind::kCannotCode);
  std::vector<double> good = allman_inputs(10, 3);
  CallStatus status = typed_call(*client_, Operation::kLogTransform, good, &logs);
  ASSERT_TRUE(status.ok()) << status.detail;
  EXPECT_EQ(allman_check_log(good, logs), "");
}

// The program the speed experiment runs checks every reply itself.
TEST_P(Allman, TheClientProgramChecksEveryReply) {
  TempDir dir;
  for (const char* op : {"is-prime", "average", "get-rand-nums", "log-transform"}) {
    std::vector<std::string> args = {"--transport", GetParam(), "--server", server_.address(), "--op", op,
                                     "--size", "500", "--calls", "5", "--timeout", "10000"};
    for (const std::string& flag : nodelay_flag_on(GetParam(), Side::kClient)) args.push_back(flag);
    ClientRun run = run_client(args, dir);
    ASSERT_EQ(run.process.exit_code, 0) << op << ": " << run.process.err;
    EXPECT_EQ(run.record.header["outcomes"]["ok"], 5) << op;
    EXPECT_EQ(run.record.header["op"], op);
  }
}

INSTANTIATE_TEST_SUITE_P(Transports, Allman, testing::ValuesIn(all_transports()), param_name);

TEST(AllmanCore, IsPrime) {
  for (int32_t n : {2, 3, 5, 7919, kAllmanPrime, 2147483647}) EXPECT_TRUE(allman_is_prime(n)) << n;
  for (int32_t n : {-7, 0, 1, 4, 9, 7917, 2147483646}) EXPECT_FALSE(allman_is_prime(n)) << n;
}

TEST(AllmanCore, TheChecksCatchAWrongResult) {
  std::vector<double> sent = allman_inputs(100, 1), logs(100);
  allman_log_transform(sent.data(), sent.size(), logs.data());
  EXPECT_EQ(allman_check_log(sent, logs), "");
  logs[42] = std::nextafter(logs[42], 1e9) + 1e-9;
  EXPECT_NE(allman_check_log(sent, logs), "");
  logs.pop_back();
  EXPECT_NE(allman_check_log(sent, logs), "");
  EXPECT_EQ(allman_check_average(sent, allman_average(sent.data(), sent.size())), "");
  EXPECT_NE(allman_check_average(sent, allman_average(sent.data(), sent.size()) * (1 + 1e-9)), "");
  EXPECT_NE(allman_check_rand(3, {0.5, 0.25}), "");
  EXPECT_NE(allman_check_rand(2, {0.5, 1.0}), "");
  EXPECT_EQ(allman_check_rand(2, {0.5, 0.0}), "");
}

TEST(AllmanCore, TheServerCoreRefusesWhatHasNoDefinedResultAndCountsNothing) {
  ServerCore core;
  std::vector<double> out;
  double mean = 0, nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  for (double bad : {0.0, -1.0, nan, inf}) EXPECT_TRUE(core.log_transform(&bad, 1, &out)) << bad;
  for (double bad : {nan, -inf}) EXPECT_TRUE(core.average(&bad, 1, &mean)) << bad;
  EXPECT_TRUE(core.average(nullptr, 0, &mean));
  EXPECT_TRUE(core.get_rand_nums(-1, &out));
  EXPECT_TRUE(core.get_rand_nums(int64_t{kAllmanMaxValues} + 1, &out));
  EXPECT_EQ(core.counters().allman_calls, 0u);
  double big[] = {1e308, 1e308, 1e308};
  EXPECT_FALSE(core.average(big, 3, &mean));
  EXPECT_DOUBLE_EQ(mean, 1e308);  // the running mean never overflows
  EXPECT_EQ(core.counters().allman_calls, 1u);
}

}  // namespace
}  // namespace rpclab::test
