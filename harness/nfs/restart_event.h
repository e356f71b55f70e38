// A server restart between a call's execution and its retransmission, made
// to happen at one chosen step of one client and shown from evidence
// (issue 23): the NFS cell's `restart_at` event.
//
//   1. the client waits at the step's gate (src/nfs/step_gate.h) before
//      the step's first call (one that makes the step's name: MKDIR,
//      CREATE GUARDED or EXCLUSIVE, by its operation row's effects);
//   2. every packet to the client is dropped at its ingress
//      (netem::apply_one_way_drop: nft on this kernel, tc in the guest),
//      and the client let go: its call reaches the server, the reply is lost;
//   3. the harness waits (with a deadline) until the server has run it:
//      the step's name is in the export and, where the server counts its
//      procedures (knfsd's proc3), that count rose;
//   4. every packet to the server dropped too (the retransmissions that
//      come meanwhile reach neither the old server nor the new one), and
//      NfsServer::restart(): its reply cache, in memory, is emptied;
//   5. the replies let through again, then the requests. Over UDP clnt_dg
//      retransmits the call with the same xid to a server that no longer
//      remembers it, so it runs again and answers NFS3ERR_EXIST: replayed,
//      told failure, cause "restart". Over TCP the restart closed the
//      connection and clnt_vc does not send the call again (no replay;
//      the reason is said).
//
// A client without the gate (the kernel's, libnfs: the row's step_gate is
// false) is struck at the call in flight instead: step 1 waits until the
// server has run `step` - 1 of the step's first operation (its own counter:
// knfsd's proc3 or proc4ops), the replies are dropped, and step 3 waits for
// the count to rise once more; that call, the step-th, is the one struck.
// One call at a time per client, so no other call runs meanwhile. Without
// the gate it needs a server that counts the operation (knfsd).
//
// Each phase is an NfsEventStep with the time and the server's counters.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "harness/nfs/nfs_server.h"
#include "harness/record/nfs_figures.h"
#include "netem/faults/fault_backend.h"
#include "nfs/nfs_call_record.h"
#include "nfs/nfs_workload.h"
#include "process/child_process.h"

namespace rpclab::harness::nfs {

class RestartEvent {
 public:
  using Clock = std::chrono::steady_clock;

  // At client `client`'s step `step`, whose first operation is `op` (one
  // that makes the step's name; throws std::invalid_argument otherwise,
  // naming those that do); the gate's FIFO is
  // made in `dir` (throws std::runtime_error when it cannot be). Without
  // `gate`, no FIFO: the call in flight once `step` - 1 have run is struck,
  // counted as NFS `version` counts it.
  RestartEvent(uint32_t client, uint32_t step, rpclab::nfs::NfsOp op, const std::string& transport,
               const std::string& dir, bool gate = true, const std::string& version = "3");
  ~RestartEvent();  // removes the FIFO
  RestartEvent(const RestartEvent&) = delete;
  RestartEvent& operator=(const RestartEvent&) = delete;

  uint32_t client() const { return restart_.client; }
  // rpclab-nfs-client's flags for that client: --gate-step, --gate-fifo
  // (none without the gate).
  std::vector<std::string> client_args() const;

  // Steps 1 to 5, from the thread that owns the processes, while the
  // client runs; each wait ends by `within` (std::runtime_error naming
  // what was not seen). The drop is lifted however it ends. `start`: the
  // server's counters before the clients started (the gateless count's base).
  void run(NfsServer& server, netem::FaultBackend& link, process::ChildProcess& client, Clock::time_point clients_start,
           std::chrono::milliseconds within, const nlohmann::json& start = nlohmann::json::object());

  // What the client was told for the step, its class from the end state
  // (or, when a later call of the step changes the name, from the server
  // having run it: the `executed` event), and the cause of a replay or why
  // there was none: the record's `restart`.
  NfsRestart judged(const rpclab::nfs::NfsCallRecord& record, const NfsExportListing& end) const;

 private:
  void note(const std::string& what, Clock::time_point clients_start, NfsServer& server,
            std::optional<nlohmann::json> link = std::nullopt, std::optional<std::string> text = std::nullopt);
  // Without the gate: steps 1 and 2 up to the replies dropped, the struck
  // step found by the server's count.
  void strike_in_flight(NfsServer& server, process::ChildProcess& client, Clock::time_point clients_start,
                        std::chrono::milliseconds within, const nlohmann::json& start,
                        const std::function<void()>& drop_replies);

  NfsRestart restart_;
  rpclab::nfs::NfsOp op_;
  bool gate_ = true;
  std::string version_;
  std::string fifo_;
};

}  // namespace rpclab::harness::nfs
