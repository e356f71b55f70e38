// The gRPC server as the gRPC world's tools see it: a client that has no
// rpclab .proto file lists the services through server reflection (as
// `grpcurl list` does), reads their methods, makes a call built from what
// reflection told it, and asks the standard health service (as
// grpc_health_probe does). The client is Debian's python3-grpcio running
// tests/ecosystem/grpc_probe.py against a real rpclab-server.
#include <gtest/gtest.h>

#include <algorithm>

#include "ecosystem_util.h"
#include "support/server_process.h"

namespace rpclab::test {
namespace {

const std::string kProbe = RPCLAB_SOURCE_DIR "/tests/ecosystem/grpc_probe.py";

class GrpcDiscovery : public testing::Test {
 protected:
  void SetUp() override {
    skip_ = python_lacks({"grpc", "google.protobuf"}, "python3-grpcio python3-protobuf grpc-proto");
    if (skip_.empty() && run_program({"sh", "-c", "test -f /usr/share/grpc-proto/grpc/health/v1/health.proto"})
                                 .exit_code != 0)
      skip_ = "Debian's grpc-proto package is not installed (apt-get install grpc-proto)";
    if (!skip_.empty()) GTEST_SKIP() << skip_;
    server_ = std::make_unique<ServerProcess>("grpc");
  }

  ProcessResult probe(std::vector<std::string> args) {
    args.insert(args.begin(), {kDebianPython, kProbe, server_->address()});
    return run_program(args, std::chrono::seconds(60));
  }

  std::string skip_;
  std::unique_ptr<ServerProcess> server_;
};

TEST_F(GrpcDiscovery, ReflectionListsTheServices) {
  ProcessResult r = probe({"list"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> services = lines_of(r.out);
  for (const char* s : {"rpclab.wire.Rpclab", "grpc.health.v1.Health", "grpc.reflection.v1alpha.ServerReflection"})
    EXPECT_NE(std::find(services.begin(), services.end(), s), services.end()) << s << " not in:\n" << r.out;
}

TEST_F(GrpcDiscovery, ReflectionDescribesEveryMethod) {
  ProcessResult r = probe({"describe", "rpclab.wire.Rpclab"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(lines_of(r.out), (std::vector<std::string>{
                                 "Null(rpclab.wire.Empty) returns (rpclab.wire.Empty)",
                                 "Next(rpclab.wire.NextRequest) returns (rpclab.wire.NextReply)",
                                 "Echo(rpclab.wire.EchoMessage) returns (rpclab.wire.EchoMessage)",
                                 "IsPrime(rpclab.wire.IsPrimeRequest) returns (rpclab.wire.IsPrimeReply)",
                                 "Average(rpclab.wire.Doubles) returns (rpclab.wire.AverageReply)",
                                 "GetRandNums(rpclab.wire.CountRequest) returns (rpclab.wire.Doubles)",
                                 "LogTransform(rpclab.wire.Doubles) returns (rpclab.wire.Doubles)",
                                 "GetRecord(rpclab.wire.RecordRequest) returns (rpclab.wire.Record)",
                             }))
      << "idl/rpclab.proto's service changed: list its methods here";
}

TEST_F(GrpcDiscovery, ACallBuiltFromReflectionAloneRunsOnTheServer) {
  ProcessResult r = probe({"call", "rpclab.wire.Rpclab/Next", R"({"clientId": 7, "seq": 0})"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "\"timesExecuted\": 1", r.out);
  EXPECT_EQ(server_->stop().total_executions(7), 1u) << "the reflected call must reach the ledger";
}

TEST_F(GrpcDiscovery, HealthSaysServingForTheServerAndTheService) {
  for (const std::string& service : {std::string(), std::string("rpclab.wire.Rpclab")}) {
    ProcessResult r = probe(service.empty() ? std::vector<std::string>{"health"}
                                            : std::vector<std::string>{"health", service});
    ASSERT_EQ(r.exit_code, 0) << "'" << service << "': " << r.err;
    EXPECT_EQ(lines_of(r.out), std::vector<std::string>{"SERVING"}) << "'" << service << "'";
  }
}

// grpcurl's way, with no .proto at all: the health service described and
// called from what reflection serves (gRPC's own health service has no
// descriptors; the server links them in).
TEST_F(GrpcDiscovery, HealthIsDescribedAndCalledFromReflectionAlone) {
  ProcessResult d = probe({"describe", "grpc.health.v1.Health"});
  ASSERT_EQ(d.exit_code, 0) << d.out << d.err;
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "Check(grpc.health.v1.HealthCheckRequest)", d.out);
  ProcessResult c = probe({"call", "grpc.health.v1.Health/Check", "{}"});
  ASSERT_EQ(c.exit_code, 0) << c.out << c.err;
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "SERVING", c.out);
}

TEST_F(GrpcDiscovery, HealthOfAnUnknownServiceIsNotFound) {
  ProcessResult r = probe({"health", "no.such.Service"});
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "NOT_FOUND", r.err);
}

}  // namespace
}  // namespace rpclab::test
