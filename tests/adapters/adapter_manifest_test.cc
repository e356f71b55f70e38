// An adapter's manifest (docs/adapters.md, "The manifest"): a valid one is
// read field by field; each invalid one is refused naming the file and the
// field; a scan lists unbuilt adapters as skipped, with the reason.
#include <sys/stat.h>

#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/temp_dir.h"
#include "transport/adapter_manifest.h"
#include "transport/transport.h"

namespace rpclab {
namespace {

nlohmann::json valid() {
  return nlohmann::json::parse(R"({
    "manifest_version": 1, "name": "demo", "summary": "a demo", "library": "demo 1.0",
    "build": ["make", "-C", "{dir}", "OUT={out}"], "server": ["{out}/demo-server"], "client": ["{out}/demo-client", "-v"],
    "carrier": "datagram", "operations": ["next", "echo"], "retry_policies": ["none", "app"],
    "library_retry": {"kind": "always_on", "what": "it re-sends"}, "wire_xid": true, "max_payload": 1000})");
}

AdapterManifest parse(const nlohmann::json& j) {
  return parse_adapter_manifest(j.dump(), "adapters/demo/manifest.json", "/src/adapters/demo", "/build/adapters/demo");
}

// The error parse gives for `j`, or "" when it takes it.
std::string refusal(const nlohmann::json& j) {
  try {
    parse(j);
    return "";
  } catch (const AdapterManifestError& e) {
    return e.what();
  }
}

TEST(AdapterManifest, ReadsEveryFieldAndSubstitutesTheFolders) {
  AdapterManifest m = parse(valid());
  EXPECT_EQ(m.name, "demo");
  EXPECT_EQ(m.build, (std::vector<std::string>{"make", "-C", "/src/adapters/demo", "OUT=/build/adapters/demo"}));
  EXPECT_EQ(m.server, std::vector<std::string>{"/build/adapters/demo/demo-server"});
  EXPECT_EQ(m.client, (std::vector<std::string>{"/build/adapters/demo/demo-client", "-v"}));
  EXPECT_TRUE(m.datagram);
  EXPECT_TRUE(m.operations.has(Operation::kEcho));
  EXPECT_FALSE(m.operations.has(Operation::kNull));
  EXPECT_TRUE(m.takes(RetryPolicy::kApp));
  EXPECT_FALSE(m.takes(RetryPolicy::kLibrary));
  EXPECT_EQ(m.library_retry, LibraryRetry::kAlwaysOn);
  EXPECT_TRUE(m.wire_xid);
  EXPECT_EQ(m.max_payload, 1000u);
  EXPECT_FALSE(m.at_most_once);
  EXPECT_FALSE(m.server_stats);
}

TEST(AdapterManifest, RefusesEachBadFieldNamingTheFileAndTheField) {
  struct Case {
    const char* field;
    std::function<void(nlohmann::json&)> spoil;
  };
  std::vector<Case> cases = {
      {"name", [](nlohmann::json& j) { j.erase("name"); }},
      {"name", [](nlohmann::json& j) { j["name"] = "Demo!"; }},
      {"name", [](nlohmann::json& j) { j["name"] = "other"; }},  // not its folder's
      {"manifest_version", [](nlohmann::json& j) { j["manifest_version"] = 2; }},
      {"carrier", [](nlohmann::json& j) { j["carrier"] = "tcp"; }},
      {"server", [](nlohmann::json& j) { j["server"] = nlohmann::json::array(); }},
      {"client", [](nlohmann::json& j) { j["client"] = "demo-client"; }},
      {"operations", [](nlohmann::json& j) { j["operations"] = {"echo"}; }},
      {"operations", [](nlohmann::json& j) { j["operations"] = {"next", "fetch"}; }},
      {"retry_policies", [](nlohmann::json& j) { j["retry_policies"] = {"app"}; }},
      {"retry_policies", [](nlohmann::json& j) { j["retry_policies"] = {"none", "library"}; }},
      {"library_retry.kind", [](nlohmann::json& j) { j["library_retry"]["kind"] = "sometimes"; }},
      {"library_retry.what", [](nlohmann::json& j) { j["library_retry"].erase("what"); }},
      {"wire_xid", [](nlohmann::json& j) { j["carrier"] = "stream"; }},
      {"max_payload", [](nlohmann::json& j) { j["max_payload"] = -1; }},
      {"at_most_once", [](nlohmann::json& j) { j["at_most_once"] = "yes"; }},
      {"speed", [](nlohmann::json& j) { j["speed"] = "fast"; }},  // a field the contract has not
  };
  for (const Case& c : cases) {
    nlohmann::json j = valid();
    c.spoil(j);
    std::string why = refusal(j);
    EXPECT_NE(why.find("adapters/demo/manifest.json: field '" + std::string(c.field) + "'"), std::string::npos)
        << c.field << ": " << (why.empty() ? "accepted" : why);
  }
  EXPECT_EQ(refusal(valid()), "");
  EXPECT_NE(refusal(nlohmann::json::array()).find("not a JSON object"), std::string::npos);
}

void write(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

TEST(AdapterManifest, AScanOffersBuiltAdaptersAndSaysWhyTheOthersAreSkipped) {
  test::TempDir dir;
  std::string src = dir.file("adapters"), out = dir.file("out");
  for (const char* name : {"built", "unbuilt", "failed"}) {
    ::mkdir(src.c_str(), 0755);
    ::mkdir((src + "/" + name).c_str(), 0755);
    nlohmann::json j = valid();
    j["name"] = name;
    write(src + "/" + name + "/manifest.json", j.dump());
    ::mkdir(out.c_str(), 0755);
    ::mkdir((out + "/" + name).c_str(), 0755);
  }
  for (const char* program : {"demo-server", "demo-client"}) {
    write(out + "/built/" + program, "#!/bin/sh\n");
    ::chmod((out + "/built/" + program).c_str(), 0755);
  }
  write(out + "/failed/" + std::string(kBuildFailedFile), "`make ...` exited with code 2: no compiler\n");
  AdapterScan scan = scan_adapters({src, dir.file("absent")}, out);
  ASSERT_EQ(scan.ready.size(), 1u);
  EXPECT_EQ(scan.ready[0].name, "built");
  ASSERT_EQ(scan.skipped.size(), 2u);
  EXPECT_EQ(scan.skipped[0].name, "failed");
  EXPECT_NE(scan.skipped[0].reason.find("its build failed (`make ...` exited with code 2: no compiler"), std::string::npos)
      << scan.skipped[0].reason;
  EXPECT_EQ(scan.skipped[1].name, "unbuilt");
  EXPECT_NE(scan.skipped[1].reason.find("not built: " + out + "/unbuilt/demo-server is missing"), std::string::npos)
      << scan.skipped[1].reason;
}

TEST(AdapterManifest, ABuiltAdapterIsARowLikeAnyOther) {
  AdapterScan scan;
  AdapterManifest m = parse(valid());
  scan.ready.push_back(m);
  scan.skipped.push_back({"later", "not built: it is missing", m});
  add_adapter_rows(scan);
  const TransportRow* row = find_transport("demo");
  ASSERT_NE(row, nullptr);
  ASSERT_NE(row->adapter, nullptr);
  EXPECT_TRUE(row->datagram());
  EXPECT_TRUE(row->traits.wire_xid);
  EXPECT_TRUE(row->traits.retransmits);
  EXPECT_EQ(row->traits.floor, "raw-udp");
  EXPECT_TRUE(row->carries(Operation::kEcho));
  EXPECT_EQ(retry_policy_refusal(*row, RetryPolicy::kApp), std::nullopt);
  ASSERT_TRUE(retry_policy_refusal(*row, RetryPolicy::kLibrary));
  EXPECT_NE(transport_names().find("raw-tcp, demo; skipped adapters: later (not built: it is missing)"),
            std::string::npos) << transport_names();
  ClientOptions o;
  o.transport = "demo";
  EXPECT_EQ(row->client_settings(o).max_payload, 1000u);
  EXPECT_THROW(row->make_client(o), SetupError);
  EXPECT_THROW(add_adapter_rows(scan), AdapterManifestError);  // a second row of one name
}

}  // namespace
}  // namespace rpclab
