#include <stdexcept>

#include "harness/nfs/ganesha_server.h"
#include "harness/nfs/knfsd_server.h"
#include "harness/nfs/named_row.h"
#include "harness/nfs/nfs_server.h"

namespace rpclab::harness::nfs {

const std::vector<NfsServerRow>& nfs_servers() {
  static const std::vector<NfsServerRow> rows = {
      {"nfs-ganesha", "nfs-ganesha 4.3 (VFS) in the server's namespace, its own rpcbind; NFSv3", false, {}, true,
       ganesha_missing,
       [](const NfsServerOptions& o, process::CommandLog& log) -> std::unique_ptr<NfsServer> {
         return std::make_unique<GaneshaServer>(o, log);
       }},
      {"knfsd",
       "Linux's kernel NFS server (6.1, user-mode-linux guest) in the server's namespace, tmpfs export; NFSv3 UDP/TCP, "
       "v4.1; its reply cache is always on",
       true, knfsd_guest_modules(), false, knfsd_missing,
       [](const NfsServerOptions& o, process::CommandLog& log) -> std::unique_ptr<NfsServer> {
         return std::make_unique<KnfsdServer>(o, log);
       }},
  };
  return rows;
}

const NfsServerRow& nfs_server(const std::string& name) {
  return named_row(nfs_servers(), name, "NFS server", "servers");
}

}  // namespace rpclab::harness::nfs
