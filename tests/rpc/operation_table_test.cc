// The operation table (ops/operation.h) holds together: one row per
// operation in its place, each row's setup and check agree on a right and
// a wrong answer; an adapter's handler table (transport/client_handlers.h)
// dispatches by operation and refuses one it does not carry; a row that
// does not carry an operation says so, naming who does.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "ops/allman.h"
#include "ops/operation.h"
#include "transport/client_handlers.h"
#include "transport/transport.h"

namespace rpclab::test {
namespace {

TEST(OperationTable, OneRowPerOperationInItsPlace) {
  ASSERT_EQ(operations().size(), kOperationCount);
  std::set<std::string_view> names;
  for (size_t i = 0; i < operations().size(); ++i) {
    const OperationRow& row = operations()[i];
    EXPECT_EQ(static_cast<size_t>(row.op), i) << row.name;
    EXPECT_TRUE(names.insert(row.name).second) << row.name << " twice";
    EXPECT_EQ(parse_operation(row.name), row.op);
    EXPECT_EQ(operation_name(row.op), row.name);
  }
  EXPECT_FALSE(parse_operation("no-such-op"));
  EXPECT_EQ(operation_names().substr(0, 19), "null | next | echo ");
}

// The answer a correct server gives to `setup`'s call.
OpReply right_answer(Operation op, const CallSetup& setup) {
  switch (op) {
    case Operation::kNull: return Empty{};
    case Operation::kNext: return NextReply{};
    case Operation::kEcho: return std::get<std::string>(setup.args);
    case Operation::kIsPrime: return allman_is_prime(std::get<int32_t>(setup.args));
    case Operation::kAverage: {
      const auto& v = std::get<std::vector<double>>(setup.args);
      return allman_average(v.data(), v.size());
    }
    case Operation::kGetRandNums: return std::vector<double>(std::get<int32_t>(setup.args), 0.5);
    case Operation::kLogTransform: {
      std::vector<double> logs;
      for (double v : std::get<std::vector<double>>(setup.args)) logs.push_back(std::log(v));
      return logs;
    }
    case Operation::kGetRecord: return std::get<KiralyRecord>(setup.want);
  }
  return Empty{};
}

TEST(OperationTable, EachRowsCheckTakesTheRightAnswerOnly) {
  for (const OperationRow& row : operations()) {
    SCOPED_TRACE(std::string(row.name));
    CallSetup setup = row.setup(7, 16);
    if (row.numbered()) {
      row.set_seq(setup.args, 41);
      EXPECT_EQ(std::get<NextRequest>(setup.args).seq, 41u);
      EXPECT_EQ(std::get<NextRequest>(setup.args).client_id, 7u);
    }
    EXPECT_EQ(row.check(setup, right_answer(row.op, setup)), "");
    if (row.op != Operation::kNull) {
      EXPECT_NE(row.check(setup, Empty{}), "") << "a reply of another shape passed";
    }
  }
  const OperationRow& next = operation_row(Operation::kNext);
  CallSetup setup = next.setup(1, 0);
  EXPECT_NE(next.check(setup, NextReply{NextStatus::kStale, 3, 1}), "") << "a refused NEXT did not run";
  const OperationRow& echo = operation_row(Operation::kEcho);
  EXPECT_NE(echo.check(echo.setup(1, 16), std::string(15, 'x')), "");
}

TEST(OperationTable, PayloadBoundsFollowWhatSizeCounts) {
  EXPECT_EQ(payload_bytes(Operation::kEcho, 100), 100u);
  EXPECT_EQ(payload_bytes(Operation::kAverage, 100), 800u);
  EXPECT_EQ(payload_bytes(Operation::kGetRecord, 100), 100u + kKiralyFieldBytes);
  EXPECT_EQ(payload_bytes(Operation::kIsPrime, 100), 0u);
  EXPECT_EQ(size_unit(Operation::kLogTransform), "doubles");
  EXPECT_EQ(size_help(), "bytes for echo; doubles for average, get-rand-nums, log-transform; photo bytes for get-record");
}

// An adapter that carries two operations.
class TwoOperations : public RpcClient {
 public:
  CallStatus call(Operation op, const OpArgs& args, OpReply* reply) override;
  CallStatus null_call(const Empty&, Empty*) {
    ++nulls;
    return CallStatus::success();
  }
  CallStatus echo(const std::string& payload, std::string* reply) {
    *reply = payload + "!";
    return CallStatus::success();
  }
  int nulls = 0;
};

constexpr ClientHandler<TwoOperations> kTwoHandlers[] = {
    {Operation::kNull, handle<&TwoOperations::null_call>},
    {Operation::kEcho, handle<&TwoOperations::echo>},
};
static_assert(operations_of(kTwoHandlers) == OperationSet{Operation::kNull, Operation::kEcho});

CallStatus TwoOperations::call(Operation op, const OpArgs& args, OpReply* reply) {
  return dispatch(kTwoHandlers, *this, op, args, reply);
}

TEST(ClientHandlers, DispatchByOperationAndRefuseTheRest) {
  TwoOperations client;
  std::string reply = "left from before";
  ASSERT_TRUE(typed_call(client, Operation::kEcho, std::string("hi"), &reply).ok());
  EXPECT_EQ(reply, "hi!");
  EXPECT_TRUE(typed_call(client, Operation::kNull, Empty{}).ok());
  EXPECT_EQ(client.nulls, 1);
  double mean = 0;
  CallStatus refused = typed_call(client, Operation::kAverage, std::vector<double>{1.0}, &mean);
  EXPECT_EQ(refused.kind, ErrorKind::kOther);
  EXPECT_EQ(refused.detail, "this transport does not carry operation average");
  CallStatus wrong = typed_call(client, Operation::kEcho, int32_t{3}, &reply);
  EXPECT_EQ(wrong.kind, ErrorKind::kOther) << "arguments of another shape reach no handler";
}

TEST(TransportTable, ARowSaysWhichOperationsItCarries) {
  for (const TransportRow& row : transports())
    for (const OperationRow& op : operations()) EXPECT_EQ(operation_refusal(row, op.op), "") << row.name;
  TransportRow narrow = *find_transport("grpc");
  narrow.operations = {Operation::kNull, Operation::kNext};
  EXPECT_TRUE(narrow.carries(Operation::kNext));
  std::string refused = operation_refusal(narrow, Operation::kGetRecord);
  EXPECT_EQ(refused.rfind("transport grpc does not carry operation get-record (these do: sunrpc-udp, ", 0), 0u)
      << refused;
}

}  // namespace
}  // namespace rpclab::test
