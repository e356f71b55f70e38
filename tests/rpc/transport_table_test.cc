// The transport table's traits hold together (every floor named exists,
// floors have a calibration, every option bit has a flag), and the
// programs' option check refuses what a row does not take, naming who does.
#include <gtest/gtest.h>

#include "transport/transport.h"
#include "transport/transport_options.h"

namespace rpclab::test {
namespace {

TEST(TransportTable, TraitsHoldTogether) {
  for (const TransportRow& row : transports()) {
    const TransportRow* floor = find_transport(row.traits.floor);
    ASSERT_NE(floor, nullptr) << row.name << " names floor '" << row.traits.floor << "', not in the table";
    EXPECT_TRUE(floor->floor()) << row.name << "'s floor " << floor->name << " is not a floor";
    EXPECT_EQ(row.floor(), !row.traits.calibration.empty()) << row.name << ": floors, and only they, are calibrated";
    if (row.traits.retransmits) {
      EXPECT_TRUE(row.datagram()) << row.name << ": only a datagram library resends";
    }
    ClientOptions defaults;
    defaults.transport = std::string(row.name);
    ClientSettings s = row.client_settings(defaults);
    EXPECT_EQ(row.traits.retransmits, s.retry_timeout_ms > 0) << row.name << ": retransmits vs its settings";
    EXPECT_GT(s.max_payload, 0u) << row.name;
    EXPECT_FALSE(s.library.empty()) << row.name;
    if (row.accepts(kOptUdpBufsize)) {
      EXPECT_TRUE(row.datagram()) << row.name;
    }
    if (row.accepts(kOptTcpNodelayClient) || row.accepts(kOptTcpNodelayServer)) {
      EXPECT_FALSE(row.datagram());
    }
  }
}

TEST(TransportTable, EveryOptionBitHasAFlag) {
  uint32_t all = 0;
  for (const TransportRow& row : transports()) all |= row.traits.options;
  uint32_t flagged = 0;
  for (const OptionRow& o : transport_options()) flagged |= o.option;
  EXPECT_EQ(all & ~flagged, 0u) << "a row accepts an option no flag sets";
}

TEST(TransportOptions, ARowRefusesWhatItDoesNotTakeAndNamesWhoDoes) {
  ClientOptions client;
  client.transport = "grpc";
  client.drain_stale_replies = true;
  std::string refused = option_error(*find_transport("grpc"), client);
  EXPECT_NE(refused.find("--drain-stale-replies"), std::string::npos) << refused;
  EXPECT_NE(refused.find("grpc does not take"), std::string::npos) << refused;
  EXPECT_NE(refused.find(transports_accepting(kOptDrainStaleReplies)), std::string::npos) << refused;

  ServerOptions server;
  server.transport = "jsonrpc";
  server.tcp_nodelay = true;
  EXPECT_NE(option_error(*find_transport("jsonrpc"), server).find("--tcp-nodelay"), std::string::npos);
  server.transport = "xmlrpc";
  EXPECT_EQ(option_error(*find_transport("xmlrpc"), server), "");
  EXPECT_EQ(option_error(*find_transport("xmlrpc"), ClientOptions{}), "");
}

}  // namespace
}  // namespace rpclab::test
