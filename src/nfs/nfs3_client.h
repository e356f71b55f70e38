// One NFSv3 client handle on libtirpc: MOUNT's MNT for the export's root
// file handle, then the workload's calls on names in that directory.
// UDP is clnt_dg (it retransmits every `retransmit_ms` until `timeout_ms`
// has passed, each time with the same xid: Levy's 1989 path); TCP is
// clnt_vc (one connection, no retransmission of its own). Credentials are
// AUTH_UNIX of the calling process.
//
// Over UDP the client guards clnt_dg's call against stale replies (late or
// duplicated replies of earlier calls, which a server without a reply
// cache sends for every duplicated request): libtirpc 1.3.3's
// clnt_dg_call resends at once on each reply with another XID and
// charges it a whole retransmit interval, so three stale replies end a
// 3000/1000 ms call as RPC_TIMEDOUT within a millisecond, and the
// resends make more stale replies for the next call
// (docs/results/nfs.md, "NFS over UDP in the ganesha cell"). Guarded, the socket takes only the call's
// own XID (a kernel socket filter, reset before each call), the replies
// already queued for earlier calls are dropped, and should clnt_dg still
// time out before the call's own deadline, the call is retried with the
// same XID for the time left (a retransmission, as the server
// sees it). `raw_clnt_dg` leaves clnt_dg as it is.
#pragma once

#include <rpc/rpc.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "nfs/nfs_workload.h"

namespace rpclab::nfs {

struct Nfs3Options {
  std::string host;
  std::string transport = "udp";  // "udp" | "tcp"
  uint16_t nfs_port = 2049;       // MOUNT is found through the server's rpcbind
  std::string mount_transport;    // rpcbind and MNT: "" = `transport`; "tcp" keeps a lossy link from
                                  // stalling the mount on clnt_dg's 15 s rpcbind retransmit
  int timeout_ms = 10000;         // a call's whole time before the library gives up
  int retransmit_ms = 1000;       // UDP: the interval between retransmissions
  bool raw_clnt_dg = false;       // UDP: no guard against stale replies (libtirpc's own handling)
};

// What one call was told.
struct Nfs3Reply {
  std::string rpc = "ok";          // "ok" | "timeout" | "error"
  std::string detail;              // libtirpc's text when not ok
  std::optional<std::string> nfs;  // the NFSv3 status name, when a reply came
  uint32_t stale_replies = 0;      // guarded UDP: replies of earlier calls found queued and dropped
  uint32_t early_timeouts = 0;     // guarded UDP: clnt_dg timeouts before the deadline, retried with the same XID
  std::optional<uint32_t> xid;     // the call's XID (every transmission of it carries this one)
};

std::string nfsstat3_name(int status);  // "NFS3ERR_EXIST"; "NFS3ERR_<n>" for one RFC 1813 does not name

class Nfs3Client {
 public:
  // Mounts `export_path` (MNT through the server's rpcbind) and opens the
  // NFS handle; throws std::runtime_error saying what failed.
  Nfs3Client(const Nfs3Options& options, const std::string& export_path);
  // With a root file handle the caller already has: no MOUNT (a server
  // that speaks only NFS, as a test's scripted one).
  Nfs3Client(const Nfs3Options& options, std::vector<char> root_handle);
  ~Nfs3Client();
  Nfs3Client(const Nfs3Client&) = delete;
  Nfs3Client& operator=(const Nfs3Client&) = delete;

  // `op` on `name` in the export's root directory (the operation's second
  // name, RENAME's target and LINK's new name, is second_name(op, name)).
  // LINK and WRITE act on the file's handle: the one the step's CREATE
  // (or MKDIR) returned, else a LOOKUP's (whose failure is then the
  // call's answer, `detail` saying so). CREATE EXCLUSIVE's verifier is
  // exclusive_verifier of the (client, seq) `name` is the step name of
  // (std::invalid_argument for a name that is not one).
  Nfs3Reply call(NfsOp op, const std::string& name);
  Nfs3Reply null_call();

  const std::vector<char>& root_handle() const { return root_; }

 private:
  void open();
  // The handle of `name` in the root, or a LOOKUP's failure in `r` (nullopt).
  std::optional<std::vector<char>> handle_of(const std::string& name, Nfs3Reply& r);

  Nfs3Options options_;
  CLIENT* clnt_ = nullptr;
  std::vector<char> root_;
  std::map<std::string, std::vector<char>> handles_;  // names in the root, from CREATE, MKDIR and LOOKUP replies
};

}  // namespace rpclab::nfs
