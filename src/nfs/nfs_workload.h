// src/nfs/: rpclab's own NFSv3 client and its workload (issue 23): rpcgen
// stubs from idl/nfs3_prot.x over libtirpc's clnt_dg (UDP, with its
// retransmit interval) and clnt_vc (TCP), a numbered sequence of
// non-idempotent operations per client on names derived from (client,
// seq), and the record of what the client was told for each call. It is
// not an adapter of the counter service: it talks to real NFS servers
// (nfs-ganesha, knfsd). May include src/common only.
//
// This file: the operations of the workload and the names they act on.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rpclab::nfs {

// GETATTR reads the attributes of the export's root, not of the step's
// name (which no step need have made): the speed view's idempotent call.
enum class NfsOp { kMkdir, kRmdir, kCreateGuarded, kRemove, kGetattr };
std::string op_name(NfsOp op);                      // "mkdir", "rmdir", "create-guarded", "remove", "getattr"
std::optional<NfsOp> parse_op(const std::string& name);
// "mkdir,rmdir" -> the operations, in order; throws std::invalid_argument
// naming the one it does not know.
std::vector<NfsOp> parse_ops(const std::string& list);
std::string ops_text(const std::vector<NfsOp>& ops);

// An operation that makes its name exist (MKDIR, CREATE) or makes it go
// (RMDIR, REMOVE).
bool creates(NfsOp op);
// An operation that may run twice with the same effect and answer
// (GETATTR): it has no replay status and no effect the end state shows.
bool idempotent(NfsOp op);
// The status an operation gets when it runs a second time after its first
// run succeeded: NFS3ERR_EXIST for a creator, NFS3ERR_NOENT for a remover;
// none for an idempotent one.
std::optional<std::string> replay_status(NfsOp op);

// The name every operation of client `client`'s step `seq` acts on, in
// the export's root: "c<client>-s<seq>". Unique per (client, seq), so an
// EXIST can only come from the same step's earlier execution.
std::string step_name(uint32_t client, uint32_t seq);

}  // namespace rpclab::nfs
