// rpclab-nfs-client: the NFS workload of one client (issue 23). Mounts the
// export (MOUNT v3 MNT through the server's rpcbind), then for seq = 1..N
// runs the operations of --ops, in order, on the name c<client>-s<seq> in
// the export's root, and writes what each call was told to --record
// (src/nfs/nfs_call_record.h). A call that fails is an outcome, recorded;
// only a mount that fails stops the program (exit 3).
#include <csignal>
#include <chrono>
#include <cstdio>
#include <iostream>

#include "common/cli_support.h"
#include "nfs/nfs3_client.h"
#include "nfs/nfs_call_record.h"
#include "nfs/nfs_workload_flags.h"
#include "nfs/step_gate.h"

int main(int argc, char** argv) {
  using namespace rpclab;
  CLI::App app{"rpclab's NFSv3 workload client: numbered non-idempotent operations, one record of what each was told",
               "rpclab-nfs-client"};
  add_version_flags(app);
  nfs::Nfs3Options options;
  std::string export_path = "/export";
  nfs::WorkloadFlags w;
  app.add_option("--server", options.host, "the NFS server's address")->required();
  app.add_option("--transport", options.transport, "udp (clnt_dg) or tcp (clnt_vc)")
      ->check(CLI::IsMember({"udp", "tcp"}))->capture_default_str();
  app.add_option("--export", export_path, "the export's path, for MOUNT's MNT")->capture_default_str();
  app.add_option("--nfs-port", options.nfs_port, "the NFS port (MOUNT is asked through rpcbind)")->capture_default_str();
  app.add_option("--mount-transport", options.mount_transport, "rpcbind and MNT over udp or tcp (default: --transport)")
      ->check(CLI::IsMember({"udp", "tcp"}));
  nfs::add_workload_flags(app, w);
  app.add_option("--timeout-ms", options.timeout_ms, "a call's whole time before the library gives up")
      ->check(in_range(1, 3600000))->capture_default_str();
  app.add_option("--retransmit-ms", options.retransmit_ms, "UDP: clnt_dg's retransmit interval")
      ->check(in_range(1, 3600000))->capture_default_str();
  app.add_flag("--raw-clnt-dg", options.raw_clnt_dg,
               "UDP: leave clnt_dg's handling of stale replies as libtirpc has it (each resends at once and costs "
               "a whole retransmit interval of the call's time; docs/nfs.md)");
  // The step gate (nfs/step_gate.h): the harness's restart event.
  uint32_t gate_step = 0;
  std::string gate_fifo;
  int gate_ms = 120000;
  app.add_option("--gate-step", gate_step, "before this step's first call, wait at --gate-fifo until the harness "
                 "lets it go")->check(in_range<uint32_t>(1, 10000000));
  app.add_option("--gate-fifo", gate_fifo, "the step gate's FIFO (made by the harness)");
  app.add_option("--gate-wait-ms", gate_ms, "how long to wait at the gate")->check(in_range(1, 3600000))
      ->capture_default_str();
  parse_or_exit(app, argc, argv);
  if ((gate_step == 0) != gate_fifo.empty()) {
    std::cerr << "rpclab-nfs-client: --gate-step and --gate-fifo go together\n";
    return kExitUsage;
  }
  nfs::parse_workload_ops_or_exit(w, "rpclab-nfs-client");

  nlohmann::json wire = nlohmann::json::object();  // what each operation goes on the wire as
  for (nfs::NfsOp op : w.ops) wire[nfs::op_name(op)] = nfs::wire_words(op);
  nfs::NfsCallRecord record;
  record.header = {{"client_id", w.client_id}, {"server", options.host}, {"transport", options.transport},
                   {"export", export_path}, {"nfs_port", options.nfs_port}, {"ops", nfs::ops_text(w.ops)},
                   {"count", w.count}, {"warmup", w.warmup}, {"timeout_ms", options.timeout_ms},
                   {"retransmit_ms", options.transport == "udp" ? nlohmann::json(options.retransmit_ms) : nlohmann::json()},
                   {"clnt_dg", options.transport == "udp" ? nlohmann::json(options.raw_clnt_dg ? "raw" : "guarded")
                                                          : nlohmann::json()},
                   {"wire", wire}};
  // clnt_vc writes without MSG_NOSIGNAL: a call on a connection the
  // server has reset (a restart) would kill the client with SIGPIPE; so
  // ignored, the write fails with EPIPE and the call with RPC_CANTSEND.
  std::signal(SIGPIPE, SIG_IGN);
  auto t0 = std::chrono::steady_clock::now();
  try {
    nfs::Nfs3Client client(options, export_path);
    nfs::record_steps_after_warmup(
        record, w.client_id, w.warmup, w.count, w.ops, t0,
        [&client](nfs::NfsOp op, const std::string& name, nfs::NfsCall& c) {
          nfs::Nfs3Reply r = client.call(op, name);
          c.stale_replies = r.stale_replies;
          c.early_timeouts = r.early_timeouts;
          c.xid = r.xid;
          return r;
        },
        [&](uint32_t seq) {
          if (seq == gate_step) nfs::wait_at_gate(gate_fifo, std::chrono::milliseconds(gate_ms));
        });
  } catch (const std::runtime_error& e) {
    std::cerr << "rpclab-nfs-client: " << e.what() << "\n";
    record.header["setup_error"] = e.what();
    record.header["wall_ns"] = nfs::ns_since(t0);
    record.write_file(w.record_path);
    return kExitSetup;
  }
  record.header["wall_ns"] = nfs::ns_since(t0);
  record.write_file(w.record_path);
  return kExitOk;
}
