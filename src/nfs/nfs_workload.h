// src/nfs/: rpclab's own NFSv3 client and its workload (issue 23): rpcgen
// stubs from idl/nfs3_prot.x over libtirpc's clnt_dg (UDP, with its
// retransmit interval) and clnt_vc (TCP), a numbered sequence of
// non-idempotent operations per client on names derived from (client,
// seq), and the record of what the client was told for each call. It is
// not an adapter of the counter service: it talks to real NFS servers
// (nfs-ganesha, knfsd). May include src/common only.
//
// This file: the operations of the workload, one row each (nfs_workload.cc),
// and the names they act on. A row says what the operation leaves in the
// export (its effects, which the harness checks against the export's end
// state), what a second execution of it is told (none for the idempotent
// ones), what rpclab-nfs-client sends, which system call
// rpclab-nfs-fsops makes and which libnfs call rpclab-nfs-libnfs makes for it. Nothing outside compares operation names.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rpclab::nfs {

// Append new operations at the end: records name them by op_name, never by number.
// GETATTR reads the attributes of the export's root, not of the step's
// name (which no step need have made): the speed view's call, with no
// effect the end state shows.
enum class NfsOp { kMkdir, kRmdir, kCreateGuarded, kRemove, kRename, kLink, kCreateExclusive, kWrite, kGetattr };
std::string op_name(NfsOp op);  // "mkdir", "rmdir", "create-guarded", "remove", "rename", "link", ...
std::optional<NfsOp> parse_op(const std::string& name);
// "mkdir,rmdir" -> the operations, in order; throws std::invalid_argument
// naming the one it does not know and listing the known ones.
std::vector<NfsOp> parse_ops(const std::string& list);
std::string ops_text(const std::vector<NfsOp>& ops);
std::vector<NfsOp> all_ops();  // every row, in the table's order
std::string known_ops_text();  // "mkdir, rmdir, create-guarded, ...": every row, for help and errors

// The name every operation of client `client`'s step `seq` acts on, in
// the export's root: "c<client>-s<seq>". Unique per (client, seq), so an
// EXIST can only come from the same step's earlier execution.
std::string step_name(uint32_t client, uint32_t seq);
// The second name of an operation that has one (RENAME's target
// "c1-s3.renamed", LINK's new name "c1-s3.link"); "" for the others.
std::string second_name(NfsOp op, const std::string& step);

// What an operation leaves in the export at the end, if nothing later in
// its step undoes it.
enum class Presence {
  kThere,    // the name exists (a directory or a file)
  kGone,     // the name does not exist
  kWritten,  // the name is a file of kWriteOffset + kWriteBytes bytes (WRITE's bytes at their offset)
};
struct NfsEffect {
  std::string name;
  Presence presence = Presence::kThere;
};
std::vector<NfsEffect> effects(NfsOp op, const std::string& step);
// An operation on a name an earlier call of its step must have made (RMDIR,
// REMOVE, RENAME, LINK, WRITE); not one that makes its step's name.
bool needs_step_name(NfsOp op);
// The status its second execution gets after the first succeeded:
// NFS3ERR_EXIST for a creator (and for CREATE EXCLUSIVE on a server that
// does not keep the verifier: RFC 1813 says it must answer NFS3_OK),
// NFS3ERR_NOENT for a remover and RENAME (its source gone); none for
// WRITE, which is idempotent.
std::optional<std::string> replay_status(NfsOp op);
// Runs twice with the same effect and answer (WRITE, GETATTR): no replay status.
bool idempotent(NfsOp op);
// The NFSv3 procedure, as RFC 1813 and knfsd's proc3 line name it: "MKDIR", "CREATE", ...
std::string procedure(NfsOp op);
// What rpclab-nfs-client sends for it ("CREATE EXCLUSIVE, createverf3 = client id, seq").
std::string wire_words(NfsOp op);
// The system call rpclab-nfs-fsops makes for it on a mount, and what
// Linux's client sends for that; "" when there is none (CREATE GUARDED:
// Linux's NFSv3 client sends open(O_CREAT|O_EXCL) as CREATE EXCLUSIVE,
// fs/nfs/nfs3proc.c nfs3_proc_create; GUARDED only as a fallback when the
// server answers NFS3ERR_NOTSUPP to EXCLUSIVE).
std::string syscall_words(NfsOp op);
// The libnfs call rpclab-nfs-libnfs makes for it and what libnfs sends
// ("nfs_mkdir2(mode 0755): MKDIR"); "" when libnfs cannot send it, and then
// no_libnfs_words says why (CREATE EXCLUSIVE: libnfs sends O_EXCL as GUARDED).
std::string libnfs_words(NfsOp op);
std::string no_libnfs_words(NfsOp op);

// WRITE's bytes: kWriteBytes fixed bytes at kWriteOffset, FILE_SYNC.
constexpr uint64_t kWriteOffset = 4096;
constexpr uint32_t kWriteBytes = 64;
std::string write_bytes();
// CREATE EXCLUSIVE's verifier for (client, seq): the client id and the
// step, big-endian, 4 bytes each. The same for every transmission of the
// step's call, and different from every other step's.
std::vector<char> exclusive_verifier(uint32_t client, uint32_t seq);
// (client, seq) from a step name; nullopt when `name` is not one.
std::optional<std::pair<uint32_t, uint32_t>> parse_step_name(const std::string& name);

}  // namespace rpclab::nfs
