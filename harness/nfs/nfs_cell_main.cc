// rpclab-nfs-cell: one NFS cell end to end (harness/nfs/nfs_cell.h), as
// root; prints the cell's result as JSON and writes it to OUT/cell.json.
//   rpclab-nfs-cell --transport udp --drc off --dup-pct 100 --count 200 --out /tmp/nfs-cell
#include <iostream>

#include "common/cli_support.h"
#include "harness/nfs/nfs_cell.h"

int main(int argc, char** argv) {
  using namespace rpclab;
  CLI::App app{"one NFS cell: an NFS server in a namespace, rpclab-nfs-client across a faulty link, the classes",
               "rpclab-nfs-cell"};
  add_version_flags(app);
  harness::nfs::NfsCellOptions o;
  std::string drc = "on";
  app.add_option("--server", o.server, "an NFS server row (nfs-ganesha, ...)")->capture_default_str();
  app.add_option("--transport", o.transport, "udp or tcp")->check(CLI::IsMember({"udp", "tcp"}))->capture_default_str();
  app.add_option("--drc", drc, "the server's duplicate request cache")->check(CLI::IsMember({"on", "off"}))->capture_default_str();
  app.add_option("--dup-pct", o.dup_pct, "requests duplicated on the link (nftables dup)")->check(in_range(0.0, 100.0));
  app.add_option("--loss-pct", o.loss_pct, "packets lost on the link, both ways (nftables drop)")->check(in_range(0.0, 100.0));
  app.add_option("--clients", o.clients, "client processes")->check(in_range<uint32_t>(1, 64))->capture_default_str();
  app.add_option("--count", o.count, "steps per client")->check(in_range<uint32_t>(1, 1000000))->capture_default_str();
  app.add_option("--ops", o.ops, "operations per step (rpclab-nfs-client --ops)")->capture_default_str();
  app.add_option("--timeout-ms", o.timeout_ms, "a call's whole time")->check(in_range(1, 600000))->capture_default_str();
  app.add_option("--retransmit-ms", o.retransmit_ms, "UDP retransmit interval")->check(in_range(1, 600000))->capture_default_str();
  app.add_flag("--raw-clnt-dg", o.raw_clnt_dg,
               "UDP: the clients leave libtirpc's handling of stale replies as it is (rpclab-nfs-client --raw-clnt-dg)");
  app.add_flag("--pcap", o.pcap, "capture the client's end of the link to OUT/client.pcap (tcpdump, in the client's namespace)");
  app.add_option("--out", o.out_dir, "the cell's folder")->required();
  parse_or_exit(app, argc, argv);
  o.drc = drc == "on";
  try {
    std::cout << harness::nfs::run_nfs_cell(o).dump(2) << "\n";
  } catch (const std::exception& e) {
    std::cerr << "rpclab-nfs-cell: " << e.what() << "\n";
    return kExitSetup;
  }
  return kExitOk;
}
