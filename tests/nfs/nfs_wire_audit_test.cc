// An NFS trial's capture, read with a decoder that is not rpclab's
// (tcpdump's own NFS printer), says what the trial's classes say (issue
// 42): on nfs-ganesha without its reply cache, under reply loss over UDP,
// every MKDIR its client was told NFS3ERR_EXIST for (replayed, told
// failure) is one XID sent more than once whose first reply was NFS3_OK
// and a later one NFS3ERR_EXIST; with the cache on, every XID answered
// more than once was answered with the same bytes each time. The reply
// loss is an nft drop at the client's ingress, after the client's capture
// point, so client.pcap holds the replies the client never read
// (docs/nfs.md, "Where each fault strikes"). As root, with ganesha and
// tcpdump; a few seconds a cell.
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "harness/nfs/client_pcap.h"
#include "harness/nfs/ganesha_server.h"
#include "harness/nfs/nfs_cell.h"
#include "nfs/nfs_call_record.h"
#include "process/command_runner.h"

namespace rpclab::harness::nfs {
namespace {

std::string why_not() {
  if (::geteuid() != 0) return "needs root (namespaces, nftables, ganesha)";
  if (std::string why = ganesha_missing(); !why.empty()) return why;
  return tcpdump_missing();
}

NfsCellOptions reply_loss_cell(const std::string& name, bool drc) {
  NfsCellOptions o;
  o.transport = "udp";
  o.drc = drc;
  o.count = 40;
  o.ops = "mkdir";
  o.faults.loss_pct = 30;  // replies lost on the way back: the client resends the same XID
  o.faults.direction = netem::Direction::kToClient;
  o.timeout_ms = 5000;
  o.retransmit_ms = 200;
  o.pcap = true;
  o.client_program = RPCLAB_BIN_DIR "/rpclab-nfs-client";
  o.out_dir = ::testing::TempDir() + "rpclab-nfs-wire-" + name + "-" + std::to_string(::getpid());
  std::filesystem::remove_all(o.out_dir);
  return o;
}

// One NFS packet as tcpdump -nn prints it ("... > 198.18.0.1.2049: NFS
// request xid 1795432018 132 mkdir fh ... \"c1-s12\"", "... NFS reply xid
// 1795432018 reply ok 120 mkdir ERROR: File exists"), with the bytes from
// its RPC header on (-x prints the IP datagram: its header and UDP's cut).
struct WirePacket {
  bool request = false;
  uint32_t xid = 0;
  std::string text;
  std::vector<uint8_t> rpc;
};

std::vector<WirePacket> read_capture(const std::string& pcap) {
  process::CommandLog log;
  auto r = process::run({"tcpdump", "-r", pcap, "-nn", "-x", "udp port 2049"}, log);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::vector<WirePacket> out;
  std::vector<uint8_t> bytes;
  auto finish = [&] {
    if (out.empty() || bytes.size() < 28) return;
    size_t ip_header = (bytes[0] & 0x0f) * 4u;
    if (bytes.size() > ip_header + 8) out.back().rpc.assign(bytes.begin() + ip_header + 8, bytes.end());
  };
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("\t0x", 0) == 0) {  // "\t0x0000:  4500 0094 ..."
      std::istringstream words(line.substr(line.find(':') + 1));
      for (std::string w; words >> w;)
        for (size_t i = 0; i + 1 < w.size(); i += 2) bytes.push_back(static_cast<uint8_t>(std::stoul(w.substr(i, 2), nullptr, 16)));
      continue;
    }
    finish();
    bytes.clear();
    WirePacket p;
    size_t at = line.find("NFS request xid ");
    p.request = at != std::string::npos;
    if (!p.request) at = line.find("NFS reply xid ");
    if (at == std::string::npos) continue;
    p.xid = static_cast<uint32_t>(std::stoul(line.substr(line.find("xid ", at) + 4)));
    p.text = line;
    out.push_back(p);
  }
  finish();
  return out;
}

TEST(NfsWireAudit, EveryReplayedMkdirIsOneXidFirstToldOkThenExist) {
  if (auto why = why_not(); !why.empty()) GTEST_SKIP() << why;
  NfsCellOptions o = reply_loss_cell("off", false);
  NfsTrial r = run_nfs_cell(o);
  ASSERT_TRUE(r.classes && r.faults);
  EXPECT_GT(r.faults->measured_loss_pct.value_or(0.0), 0) << "no reply was lost: the fault did not apply";
  std::vector<WirePacket> wire = read_capture(o.out_dir + "/client.pcap");
  // The XID of each step's MKDIR: the request that carries its name.
  std::map<std::string, uint32_t> xid_of;
  for (const WirePacket& p : wire)
    if (p.request && p.text.find(" mkdir ") != std::string::npos) {
      size_t q = p.text.rfind('"'), open = q == std::string::npos ? q : p.text.rfind('"', q - 1);
      if (open != std::string::npos) xid_of.emplace(p.text.substr(open + 1, q - open - 1), p.xid);
    }
  auto record = rpclab::nfs::NfsCallRecord::read_file(o.out_dir + "/client-1.jsonl");
  uint64_t told_exist = 0;
  for (const auto& call : record.calls) {
    if (call.nfs != "NFS3ERR_EXIST") continue;
    ++told_exist;
    ASSERT_TRUE(xid_of.count(call.name)) << call.name << " is not on the wire";
    uint32_t xid = xid_of[call.name];
    EXPECT_EQ(call.xid, std::optional<uint32_t>(xid)) << call.name << ": the record's XID is not the wire's";
    int requests = 0;
    std::vector<std::string> replies;
    for (const WirePacket& p : wire) {
      if (p.xid != xid) continue;
      if (p.request)
        ++requests;
      else
        replies.push_back(p.text);
    }
    EXPECT_GE(requests, 2) << call.name << " (xid " << xid << ") was sent once";
    ASSERT_GE(replies.size(), 2u) << call.name << " (xid " << xid << ")";
    EXPECT_EQ(replies.front().find("ERROR"), std::string::npos) << "its first reply: " << replies.front();
    bool exist_later = false;
    for (size_t i = 1; i < replies.size(); ++i) exist_later |= replies[i].find("ERROR: File exists") != std::string::npos;
    EXPECT_TRUE(exist_later) << call.name << " (xid " << xid << "): no later reply was NFS3ERR_EXIST";
  }
  EXPECT_EQ(told_exist, r.classes->replayed_told_failure) << "every replayed MKDIR was told NFS3ERR_EXIST";
  EXPECT_GT(told_exist, 0u) << "no MKDIR was replayed: nothing was checked on the wire (30% of the replies lost)";
  std::filesystem::remove_all(o.out_dir);
}

TEST(NfsWireAudit, WithTheCacheEveryResendIsAnsweredWithTheSameBytes) {
  if (auto why = why_not(); !why.empty()) GTEST_SKIP() << why;
  NfsCellOptions o = reply_loss_cell("on", true);
  NfsTrial r = run_nfs_cell(o);
  ASSERT_TRUE(r.classes);
  EXPECT_EQ(r.classes->replayed_told_failure, 0u);
  std::map<uint32_t, std::vector<const WirePacket*>> replies;
  std::vector<WirePacket> wire = read_capture(o.out_dir + "/client.pcap");
  for (const WirePacket& p : wire)
    if (!p.request) replies[p.xid].push_back(&p);
  int answered_again = 0;
  for (const auto& [xid, all] : replies) {
    if (all.size() < 2) continue;
    ++answered_again;
    for (const WirePacket* p : all) {
      EXPECT_FALSE(all.front()->rpc.empty());
      EXPECT_EQ(p->rpc, all.front()->rpc) << "xid " << xid << ": " << p->text << " differs from " << all.front()->text;
      EXPECT_EQ(p->text.find("ERROR"), std::string::npos) << p->text;
    }
  }
  EXPECT_GT(answered_again, 0) << "no XID was answered twice: nothing was compared (30% of the replies lost)";
  std::filesystem::remove_all(o.out_dir);
}

}  // namespace
}  // namespace rpclab::harness::nfs
