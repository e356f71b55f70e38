// The transport table's traits hold together (every floor named exists,
// floors have a calibration), its settings too (one flag, one meaning),
// and the programs' check refuses a setting a row does not take, naming
// who does; their flags come from the rows.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <CLI/CLI.hpp>

#include "sunrpc/sunrpc_settings.h"
#include "transport/settings_table.h"

namespace rpclab::test {
namespace {

TEST(TransportTable, TraitsHoldTogether) {
  for (const TransportRow& row : transports()) {
    const TransportRow* floor = find_transport(row.traits.floor);
    ASSERT_NE(floor, nullptr) << row.name << " names floor '" << row.traits.floor << "', not in the table";
    EXPECT_TRUE(floor->floor()) << row.name << "'s floor " << floor->name << " is not a floor";
    // Every floor is checked against a tool in the same run (sockperf), and
    // so may an RPC row be (grpc against ghz); a tool is never a row.
    if (row.floor()) EXPECT_FALSE(row.traits.calibration.empty()) << row.name << ": a floor without its calibration";
    if (!row.traits.calibration.empty())
      EXPECT_EQ(find_transport(row.traits.calibration), nullptr) << row.name << ": its calibration tool is a row";
    if (row.traits.retransmits) {
      EXPECT_TRUE(row.datagram()) << row.name << ": only a datagram library resends";
    }
    ClientOptions defaults;
    defaults.transport = std::string(row.name);
    ClientSettings s = row.client_settings(defaults);
    EXPECT_EQ(row.traits.retransmits, s.retry_timeout_ms > 0) << row.name << ": retransmits vs its settings";
    EXPECT_GT(s.max_payload, 0u) << row.name;
    EXPECT_FALSE(s.library.empty()) << row.name;
    if (row.takes(sunrpc::kUdpBufsize, Side::kBoth)) {
      EXPECT_TRUE(row.datagram()) << row.name;
    }
    if (row.takes(kTcpNodelay, Side::kBoth)) {
      EXPECT_FALSE(row.datagram()) << row.name;
    }
    EXPECT_EQ(row.takes(kRetryTimeout, Side::kClient), row.traits.retransmits)
        << row.name << ": the retransmit interval is for the rows whose library retransmits";
  }
}

TEST(TransportSettings, OneFlagOneMeaning) {
  std::set<std::string_view> names, flags;
  for (const TransportSetting* s : all_settings()) {
    EXPECT_TRUE(names.insert(s->name).second) << s->name << " twice";
    EXPECT_TRUE(flags.insert(s->flag).second) << s->flag << " means two settings";
    EXPECT_EQ(find_setting(s->name), s);
    for (Side side : {Side::kClient, Side::kServer})
      if (!transports_taking(*s, side).empty()) {
        EXPECT_FALSE((side == Side::kClient ? s->client_help : s->server_help).empty())
            << s->name << ": a side some row takes it on has no help";
      }
    EXPECT_EQ(s->matrix_flag.empty(), s->matrices == 0) << s->name;
  }
}

TEST(TransportSettings, ZeroOrOffIsUnset) {
  TransportSettings s;
  s.set(sunrpc::kReplyCache, 0);
  s.set(kTcpNodelay, 0);
  s.set(kRetryTimeout, std::nullopt);
  EXPECT_TRUE(s.empty());
  s.set(sunrpc::kReplyCache, 1024);
  s.set(kTcpNodelay, 7);
  EXPECT_EQ(s.get(sunrpc::kReplyCache), 1024);
  EXPECT_EQ(s.get(kTcpNodelay), 1) << "a flag is on or off";
  TransportSettings server = taken_by(*find_transport("sunrpc-udp"), Side::kServer, s);
  EXPECT_EQ(server.get(sunrpc::kReplyCache), 1024);
  EXPECT_FALSE(server.on(kTcpNodelay)) << "sunrpc-udp takes no TCP_NODELAY";
}

TEST(TransportSettings, ARowRefusesWhatItDoesNotTakeAndNamesWhoDoes) {
  TransportSettings client;
  client.set_on(sunrpc::kDrainStaleReplies);
  std::string refused = setting_refusal(*find_transport("grpc"), Side::kClient, client);
  EXPECT_NE(refused.find("--drain-stale-replies"), std::string::npos) << refused;
  EXPECT_NE(refused.find("grpc does not take"), std::string::npos) << refused;
  EXPECT_NE(refused.find(transports_taking(sunrpc::kDrainStaleReplies, Side::kClient)), std::string::npos) << refused;

  TransportSettings nodelay;
  nodelay.set_on(kTcpNodelay);
  EXPECT_NE(setting_refusal(*find_transport("jsonrpc"), Side::kServer, nodelay).find("--tcp-nodelay"),
            std::string::npos);
  EXPECT_EQ(setting_refusal(*find_transport("xmlrpc"), Side::kServer, nodelay), "");
  EXPECT_NE(setting_refusal(*find_transport("xmlrpc"), Side::kClient, nodelay), "") << "curl sets it itself";
  EXPECT_EQ(setting_refusal(*find_transport("xmlrpc"), Side::kClient, TransportSettings{}), "");
}

TEST(TransportSettings, TheProgramsFlagsComeFromTheRows) {
  CLI::App server;
  TransportSettings got;
  add_setting_flags(server, Side::kServer, &got);
  std::vector<std::string> args = {"--drc", "1024", "--tcp-nodelay"};
  std::reverse(args.begin(), args.end());
  server.parse(args);
  EXPECT_EQ(got.get(sunrpc::kReplyCache), 1024);
  EXPECT_TRUE(got.on(kTcpNodelay));
  EXPECT_EQ(server.get_option_no_throw("--drain-stale-replies"), nullptr) << "a client's setting on the server";
  EXPECT_EQ(server.get_option_no_throw("--retry-timeout"), nullptr);

  CLI::App client;
  TransportSettings client_got;
  add_setting_flags(client, Side::kClient, &client_got);
  EXPECT_NE(client.get_option_no_throw("--retry-timeout"), nullptr);
  EXPECT_NE(client.get_option_no_throw("--rpcbind"), nullptr);
  EXPECT_EQ(client.get_option_no_throw("--drc"), nullptr) << "the reply cache is the server's";
  EXPECT_THROW(client.parse(std::vector<std::string>{"0", "--retry-timeout"}), CLI::ValidationError);
}

}  // namespace
}  // namespace rpclab::test
