// The path table (harness/paths/path_table.h): which (path, transport,
// replicas) a cell may ask for, and why the others are refused. The
// transports are the built-in rows, one per carriage, so a refusal is
// checked against what the rows themselves say (balances, http, datagram).
#include "harness/paths/path_table.h"

#include <gtest/gtest.h>

#include <string>

namespace rpclab::harness {
namespace {

const PathRow& path(std::string_view name) {
  const PathRow* row = find_path(name);
  if (!row) throw std::runtime_error("no path row " + std::string(name));
  return *row;
}

const TransportRow& transport(std::string_view name) {
  const TransportRow* row = find_transport(name);
  if (!row) throw std::runtime_error("no transport row " + std::string(name));
  return *row;
}

TEST(PathTable, FindsItsRowsAndNothingElse) {
  EXPECT_EQ(find_path("no-such-path"), nullptr);
  EXPECT_EQ(find_path(""), nullptr);
  // A prefix of a name is not the name: "haproxy-retry" must not find "haproxy".
  EXPECT_EQ(find_path("haproxy-re"), nullptr);
  ASSERT_NE(find_path("haproxy-retry"), nullptr);
  EXPECT_EQ(find_path("haproxy-retry")->name, "haproxy-retry");
  ASSERT_NE(find_path("haproxy-retry")->proxy, nullptr);
  EXPECT_EQ(find_path("haproxy-retry")->proxy->name, "haproxy");
  EXPECT_EQ(find_path("direct")->proxy, nullptr);
  EXPECT_TRUE(find_path("grpc-round-robin")->client_balances);
}

TEST(PathTable, EachProxysFirstRowIsItsDefault) {
  // The tables print a proxy's default first; a second default row (or
  // none) would make "the proxy's own behaviour" ambiguous.
  for (const ProxyRow& proxy : proxies()) {
    int defaults = 0;
    const PathRow* first = nullptr;
    for (const PathRow& row : paths()) {
      if (row.proxy != &proxy) continue;
      if (!first) first = &row;
      defaults += row.default_setting;
    }
    ASSERT_NE(first, nullptr) << proxy.name << " has no path row";
    EXPECT_TRUE(first->default_setting) << proxy.name;
    EXPECT_EQ(defaults, 1) << proxy.name;
  }
}

TEST(PathTable, CarriageComesFromTheTransportsTraits) {
  EXPECT_EQ(carriage_of(transport("grpc")), Carriage::kH2);
  EXPECT_EQ(carriage_of(transport("xmlrpc")), Carriage::kHttp1);
  EXPECT_EQ(carriage_of(transport("jsonrpc")), Carriage::kHttp1);
  // XML-RPC's packet stream carries the same XML without HTTP: a TCP proxy's.
  EXPECT_EQ(carriage_of(transport("xmlrpc-pstream")), Carriage::kStream);
  EXPECT_EQ(carriage_of(transport("sunrpc-tcp")), Carriage::kStream);
  EXPECT_EQ(carriage_of(transport("sunrpc-udp")), Carriage::kDatagram);
  EXPECT_EQ(carriage_of(transport("raw-udp")), Carriage::kDatagram);
}

TEST(PathRefusal, DirectTakesOneReplicaOnly) {
  EXPECT_EQ(path_refusal(path("direct"), transport("sunrpc-udp"), 1), "");
  std::string why = path_refusal(path("direct"), transport("sunrpc-udp"), 2);
  EXPECT_NE(why.find("2 replicas"), std::string::npos) << why;
  EXPECT_NE(path_refusal(path("direct"), transport("grpc"), 3), "");
}

TEST(PathRefusal, ClientBalancingNeedsARowWhoseClientBalances) {
  EXPECT_EQ(path_refusal(path("grpc-round-robin"), transport("grpc"), 2), "");
  std::string why = path_refusal(path("grpc-round-robin"), transport("sunrpc-tcp"), 2);
  EXPECT_NE(why.find("sunrpc-tcp"), std::string::npos) << why;
  EXPECT_NE(why.find("does not balance"), std::string::npos) << why;
  // Even with one replica: the row's client still cannot take a list.
  EXPECT_NE(path_refusal(path("grpc-round-robin"), transport("xmlrpc"), 1), "");
}

TEST(PathRefusal, AProxyThatDoesNotFrontUdpRefusesDatagrams) {
  for (std::string_view name : {"haproxy", "haproxy-retry", "caddy"}) {
    std::string why = path_refusal(path(name), transport("sunrpc-udp"), 2);
    EXPECT_NE(why.find("does not front UDP datagrams"), std::string::npos) << name << ": " << why;
  }
  // nginx's stream module does: its default path takes Sun RPC over UDP.
  EXPECT_EQ(path_refusal(path("nginx"), transport("sunrpc-udp"), 2), "");
  // Caddy fronts HTTP only, not a TCP stream either.
  EXPECT_NE(path_refusal(path("caddy"), transport("sunrpc-tcp"), 2).find("does not front TCP stream"),
            std::string::npos);
}

TEST(PathRefusal, ARetrySettingNeedsItsPlaceInTheTemplate) {
  // nginx's stream templates have no @NEXT_UPSTREAM@: nginx-retry there
  // would run the default and be printed as the retry row.
  std::string why = path_refusal(path("nginx-retry"), transport("sunrpc-tcp"), 2);
  EXPECT_NE(why.find("no such setting"), std::string::npos) << why;
  EXPECT_NE(path_refusal(path("nginx-retry"), transport("sunrpc-udp"), 2), "");
  EXPECT_EQ(path_refusal(path("nginx-retry"), transport("grpc"), 2), "");
  EXPECT_EQ(path_refusal(path("nginx-retry"), transport("jsonrpc"), 2), "");
  // HAProxy ignores retry-on in mode tcp: its retry rows stand only where
  // it speaks HTTP, its default row everywhere it fronts.
  EXPECT_NE(path_refusal(path("haproxy-retry"), transport("sunrpc-tcp"), 2).find("no such setting"), std::string::npos);
  EXPECT_NE(path_refusal(path("haproxy-retry-all"), transport("sunrpc-tcp"), 2), "");
  EXPECT_EQ(path_refusal(path("haproxy"), transport("sunrpc-tcp"), 2), "");
  EXPECT_EQ(path_refusal(path("haproxy-retry"), transport("grpc"), 2), "");
  EXPECT_EQ(path_refusal(path("haproxy-retry-all"), transport("xmlrpc"), 2), "");
  EXPECT_EQ(path_refusal(path("caddy-retry"), transport("grpc"), 2), "");
}

TEST(PathRefusal, ProxiesTakeAnyNumberOfReplicas) {
  for (int replicas : {1, 2, 5}) {
    EXPECT_EQ(path_refusal(path("haproxy"), transport("grpc"), replicas), "") << replicas;
    EXPECT_EQ(path_refusal(path("nginx"), transport("xmlrpc"), replicas), "") << replicas;
  }
}

TEST(PathTable, ReadTemplateNamesAMissingFile) {
  try {
    read_template("no-such-template.cfg");
    FAIL() << "read_template returned for a file that does not exist";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("no-such-template.cfg"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace rpclab::harness
