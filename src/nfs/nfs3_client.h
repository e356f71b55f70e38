// One NFSv3 client handle on libtirpc: MOUNT's MNT for the export's root
// file handle, then the workload's calls on names in that directory.
// UDP is clnt_dg (it retransmits every `retransmit_ms` until `timeout_ms`
// has passed, each time with the same xid: Levy's 1989 path); TCP is
// clnt_vc (one connection, no retransmission of its own). Credentials are
// AUTH_UNIX of the calling process.
#pragma once

#include <rpc/rpc.h>

#include <cstdint>
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
};

// What one call was told.
struct Nfs3Reply {
  std::string rpc = "ok";          // "ok" | "timeout" | "error"
  std::string detail;              // libtirpc's text when not ok
  std::optional<std::string> nfs;  // the NFSv3 status name, when a reply came
};

std::string nfsstat3_name(int status);  // "NFS3ERR_EXIST"; "NFS3ERR_<n>" for one RFC 1813 does not name

class Nfs3Client {
 public:
  // Mounts `export_path` (MNT through the server's rpcbind) and opens the
  // NFS handle; throws std::runtime_error saying what failed.
  Nfs3Client(const Nfs3Options& options, const std::string& export_path);
  ~Nfs3Client();
  Nfs3Client(const Nfs3Client&) = delete;
  Nfs3Client& operator=(const Nfs3Client&) = delete;

  // `op` on `name` in the export's root directory.
  Nfs3Reply call(NfsOp op, const std::string& name);
  Nfs3Reply null_call();

  const std::vector<char>& root_handle() const { return root_; }

 private:
  Nfs3Options options_;
  CLIENT* clnt_ = nullptr;
  std::vector<char> root_;
};

}  // namespace rpclab::nfs
