// The at-most-once cost table pairs each cell with the same cell whose
// server kept the table, and only those.
#include "harness/speed/at_most_once_report.h"

#include <gtest/gtest.h>

namespace rpclab::harness {
namespace {

CellRecord record(const std::string& transport, bool at_most_once, double p50, std::vector<double> means) {
  CellConfig cell;
  cell.experiment = "speed";
  cell.transport = transport;
  cell.op = "next";
  cell.at_most_once = at_most_once;
  CellRecord r = CellRecord::begin(cell, "test");
  r.speed.latency.p50_us = p50;
  r.speed.latency.calls_per_s = 1e6 / p50;
  r.speed.latency.trial_means_us = means;
  return r;
}

TEST(AtMostOnceCost, PairsOffWithOnAndFlagsWhatWelchFinds) {
  std::vector<CellRecord> records = {record("sunrpc-tcp", false, 16.0, {16, 16.1, 15.9, 16, 16.2}),
                               record("sunrpc-tcp", true, 20.0, {20, 20.1, 19.9, 20, 20.2}),
                               record("grpc", false, 50.0, {50, 52, 48, 51, 49}),
                               record("grpc", true, 50.5, {51, 49, 50, 52, 48}),
                               record("jsonrpc", false, 30.0, {30, 31, 29})};  // no pair: not shown
  std::string t = at_most_once_cost_table(records);
  EXPECT_NE(t.find("sunrpc-tcp"), std::string::npos) << t;
  EXPECT_NE(t.find("1.250*"), std::string::npos) << t;
  EXPECT_NE(t.find("1.010 "), std::string::npos) << "grpc's difference is noise: no star\n" << t;
  EXPECT_EQ(t.find("jsonrpc"), std::string::npos) << t;
  EXPECT_EQ(at_most_once_cost_table({records.back()}), "");
}

}  // namespace
}  // namespace rpclab::harness
