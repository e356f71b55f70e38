// A cell's transport settings as one generic block (transport/settings_table.h,
// harness/run/setting_axes.h): cells written before the block keep their JSON (their
// identity: --resume matches on it) and their labels (their folders'
// names); each program gets the settings its row takes on its side; the
// matrix commands' flags and the axes they give come from the settings rows.
#include <gtest/gtest.h>
#include <CLI/CLI.hpp>

#include "harness/record/cell_config.h"
#include "harness/placement/cell_processes.h"
#include "harness/run/setting_axes.h"
#include "netem/config/fault_config.h"
#include "transport/settings_table.h"
#include "sunrpc/sunrpc_settings.h"

namespace rpclab::harness {
namespace {

using nlohmann::json;

// Cells as the version before settings were rows wrote them (their
// faults apart: the fault spec's own JSON is netem's), with the labels it
// gave them.
struct OldCell {
  const char* json;
  double dup_pct;
  const char* label;
};
const OldCell kOldCells[] = {
    {R"({"block":"remedies","calls_per_client":3000,"clients":1,"connect":"persistent","drain_stale_replies":true,
        "drc":1024,"experiment":"dependability","faults_backend":"auto",
        "grpc_retry":false,"hogs":0,"pin":true,"retry_timeout_ms":20,"size":0,"timeout_ms":1000,
        "topology":"two-host","transport":"sunrpc-udp","trials":3,"udp_bufsize":0,"warmup":0})",
     5, "sunrpc-udp two-host persistent dup 5% both retry 20ms drc drain"},
    {R"({"block":"load","calls_per_client":2000,"clients":8,"connect":"persistent","drain_stale_replies":false,
        "drc":0,"experiment":"dependability","faults_backend":"auto","grpc_retry":false,"hogs":5,
        "pin":true,"retry_timeout_ms":null,"size":0,"timeout_ms":null,"topology":"loopback",
        "transport":"sunrpc-tcp","trials":5,"udp_bufsize":0,"warmup":0})",
     0, "sunrpc-tcp loopback persistent x8 load 5"},
    {R"({"block":"","calls_per_client":100,"clients":1,"connect":"persistent","drain_stale_replies":false,"drc":0,
        "experiment":"speed","faults_backend":"auto","grpc_retry":false,"hogs":0,"pin":false,
        "retry_timeout_ms":null,"size":12,"tcp_nodelay":true,"timeout_ms":10000,"topology":"loopback",
        "transport":"raw-tcp","trials":10,"udp_bufsize":0,"warmup":20})",
     0, "raw-tcp loopback persistent nodelay 12 B"},
    {R"({"block":"","calls_per_client":10,"clients":1,"connect":"per-call","drain_stale_replies":false,"drc":0,
        "experiment":"speed","faults_backend":"auto","grpc_retry":false,"hogs":0,"pin":false,
        "retry_timeout_ms":null,"size":1048576,"timeout_ms":10000,"topology":"two-host",
        "transport":"sunrpc-udp","trials":8,"udp_bufsize":65536,"warmup":20})",
     0, "sunrpc-udp two-host per-call 1048576 B"},
};

json written_by_old(const OldCell& old) {
  json written = json::parse(old.json);
  netem::FaultSpec faults;
  faults.dup_pct = old.dup_pct;
  written["faults"] = json(faults);
  return written;
}

TEST(CellSettings, OldCellsKeepTheirJsonAndTheirLabel) {
  for (const OldCell& old : kOldCells) {
    json written = written_by_old(old);
    CellConfig cell = CellConfig::from_json(written);
    EXPECT_EQ(cell.to_json().dump(), written.dump()) << old.label;
    EXPECT_EQ(cell.label(), old.label);
  }
  CellConfig remedies = CellConfig::from_json(written_by_old(kOldCells[0]));
  EXPECT_EQ(remedies.settings.get(kRetryTimeout), 20);
  EXPECT_EQ(remedies.settings.get(sunrpc::kReplyCache), 1024);
  EXPECT_TRUE(remedies.settings.on(sunrpc::kDrainStaleReplies));
  EXPECT_FALSE(remedies.settings.on(sunrpc::kUdpBufsize)) << "0 is the library's own buffer: unset";
}

TEST(CellSettings, EachProgramGetsWhatItsRowTakesOnItsSide) {
  CellConfig udp = CellConfig::from_json(written_by_old(kOldCells[0]));
  udp.settings.set(sunrpc::kUdpBufsize, 65536);
  TransportSettings client = udp.client_options().settings, server = udp.server_options().settings;
  EXPECT_EQ(client.get(kRetryTimeout), 20);
  EXPECT_TRUE(client.on(sunrpc::kDrainStaleReplies));
  EXPECT_FALSE(client.on(sunrpc::kReplyCache)) << "the reply cache is the server's";
  EXPECT_EQ(server.get(sunrpc::kReplyCache), 1024);
  EXPECT_EQ(server.get(sunrpc::kUdpBufsize), 65536);
  EXPECT_EQ(client.get(sunrpc::kUdpBufsize), 65536);
  EXPECT_FALSE(server.on(kRetryTimeout));

  CellFiles files{"/tmp/cell"};
  std::vector<std::string> server_args = server_argv(udp, "10.0.0.1:0", files, "/bin");
  std::vector<std::string> client_args = client_argv(udp, 1, "10.0.0.1:7", files, "/bin");
  auto has = [](const std::vector<std::string>& argv, const std::string& flag, const std::string& value) {
    auto it = std::find(argv.begin(), argv.end(), flag);
    return it != argv.end() && (value.empty() || (it + 1 != argv.end() && *(it + 1) == value));
  };
  EXPECT_TRUE(has(server_args, "--drc", "1024"));
  EXPECT_TRUE(has(server_args, "--udp-bufsize", "65536"));
  EXPECT_FALSE(has(server_args, "--retry-timeout", ""));
  EXPECT_TRUE(has(client_args, "--retry-timeout", "20"));
  EXPECT_TRUE(has(client_args, "--drain-stale-replies", ""));
  EXPECT_FALSE(has(client_args, "--drc", ""));

  // xmlrpc takes TCP_NODELAY on its server only (curl sets it on the client).
  CellConfig xml = CellConfig::from_json(written_by_old(kOldCells[2]));
  xml.transport = "xmlrpc";
  EXPECT_TRUE(xml.server_options().settings.on(kTcpNodelay));
  EXPECT_TRUE(xml.client_options().settings.empty());
}

TEST(CellSettings, WordsInLabelsAndRowNames) {
  CellConfig cell = CellConfig::from_json(written_by_old(kOldCells[0]));
  EXPECT_EQ(label_words(cell.settings), " retry 20ms drc drain");
  EXPECT_EQ(row_words(cell.settings), " +drc +drain") << "the report names the retransmit interval from the trait";
  EXPECT_EQ(settings_path_part(cell.settings), "-retry_timeout_ms-20-drc-1024-drain_stale_replies");
  TransportSettings nodelay;
  nodelay.set_on(kTcpNodelay);
  EXPECT_EQ(row_words(nodelay), " nodelay");
  EXPECT_TRUE(same_settings_for("raw-udp", nodelay, TransportSettings{})) << "raw-udp takes no TCP_NODELAY";
  EXPECT_FALSE(same_settings_for("raw-tcp", nodelay, TransportSettings{}));
  EXPECT_TRUE(same_settings_for("sockperf-tcp", nodelay, TransportSettings{})) << "no row: takes nothing";
}

TEST(CellSettings, MatrixFlagsComeFromTheRows) {
  CLI::App app;
  SettingFlags dependability, speed;
  add_setting_axis_flags(app.add_subcommand("dependability"), kDependabilityMatrix, &dependability);
  add_setting_axis_flags(app.add_subcommand("speed"), kSpeedMatrix, &speed);
  std::vector<std::string> args = {"dependability", "--retry-timeouts", "default,20", "--drc", "0,1024", "--drain",
                                   "off,on"};
  std::reverse(args.begin(), args.end());
  app.parse(args);
  SettingAxes axes = setting_axes(dependability);
  EXPECT_EQ(axes.values.at("retry_timeout_ms"), (std::vector<SettingValue>{std::nullopt, 20}));
  EXPECT_EQ(axes.values.at("drc"), (std::vector<SettingValue>{0, 1024}));
  EXPECT_EQ(axes.values.at("drain_stale_replies"), (std::vector<SettingValue>{std::nullopt, 1}));
  EXPECT_EQ(axes.values.count("tcp_nodelay"), 0u);
  EXPECT_EQ(app.get_subcommand("dependability")->get_option_no_throw("--tcp-nodelay"), nullptr);
  EXPECT_NE(app.get_subcommand("speed")->get_option_no_throw("--tcp-nodelay"), nullptr);
  EXPECT_NE(app.get_subcommand("speed")->get_option_no_throw("--udp-bufsize"), nullptr);
  EXPECT_EQ(app.get_subcommand("speed")->get_option_no_throw("--drc"), nullptr);

  // The axes fan out on the rows that take them, in the row's order.
  std::vector<TransportSettings> udp = axes.combinations(*find_transport("sunrpc-udp"));
  ASSERT_EQ(udp.size(), 8u);
  EXPECT_TRUE(udp.front().empty());
  EXPECT_EQ(udp[1].get(sunrpc::kDrainStaleReplies), 1) << "the last of the row's settings varies fastest";
  EXPECT_EQ(axes.combinations(*find_transport("grpc")).size(), 1u);
}

}  // namespace
}  // namespace rpclab::harness
