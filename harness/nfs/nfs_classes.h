// harness/nfs/: the NFS experiment (issue 23): an NFS server in the
// server's namespace (ganesha_server.h), rpclab-nfs-client in the
// client's, a fault on the link between them, and the classes of the
// workload's calls from evidence (this file). May include harness/run and
// what lies below it (netem, process, src).
//
// This file: each call's class, from what the client was told (its record)
// and the export's end state (which names exist, and their sizes):
//
//   told          | effect at the end | class
//   NFS3_OK       | there             | correct
//   NFS3_OK       | not there         | lost
//   its replay's  | there             | replayed, told failure (the step's own
//   status        |                   | earlier execution made it: names are
//                 |                   | unique per (client, seq); Levy's
//                 |                   | silent error in NFS form)
//   other error   | there             | indeterminate (told failure, it ran)
//   other error   | not there         | clean failure
//
// An operation's effect and its replay's status are its row's
// (src/nfs/nfs_workload.h: effects, replay_status): MKDIR and CREATE make
// the step's name (a replay is told NFS3ERR_EXIST; for CREATE EXCLUSIVE
// only on a server that does not keep the verifier), RMDIR and REMOVE make
// it go (NFS3ERR_NOENT), RENAME makes it go and <step>.renamed appear
// (NFS3ERR_NOENT: its source gone), LINK makes <step>.link appear
// (NFS3ERR_EXIST), WRITE leaves the step's file at its written size (no
// replay status: a second WRITE of the same bytes is the same WRITE).
//
// A call is judged when its effect can be seen at the end and what it
// acted on was there:
//   - every earlier call of its step was told NFS3_OK, and an operation
//     on the step's name (needs_step_name) follows one that made it;
//   - no later call of its step changes whether one of its names exists
//     ("mkdir,rmdir": the MKDIR is not judged; "create-guarded,write":
//     both are; "create-guarded,link,rename": LINK and RENAME are).
// A call is judged by the effects no other call of its step contests:
// RENAME by <step>.renamed being there, not by <step> being gone, since a
// late copy of the step's CREATE can re-make <step> after the RENAME ran
// (seen with ganesha's cache off under duplication, 2026-11-28: the name
// there again as a new file of one link beside <step>.renamed). Such a
// CREATE, told NFS3_OK, is **replayed, told success** (ran_again_after_undone).
// The others are counted as not judged.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "harness/record/nfs_figures.h"
#include "nfs/nfs_call_record.h"

namespace rpclab::harness::nfs {

using harness::NfsClass;
using harness::NfsClassCounts;
using harness::NfsExportListing;

// One call, told `call`, whose effect is (or is not) there at the end.
NfsClass class_of(const rpclab::nfs::NfsCall& call, bool effect_there);

// Whether every effect of `call` holds in `end`.
bool effect_there(const rpclab::nfs::NfsCall& call, const NfsExportListing& end);

// Whether the effect of the record's call `index` is in `end`; nullopt when
// a later call of its step changes it, so the end cannot say.
std::optional<bool> effect_at_end(const rpclab::nfs::NfsCallRecord& record, size_t index, const NfsExportListing& end);
// Call `index`, told NFS3_OK, ran again after a later call of its step
// (told NFS3_OK, and seen to run by an effect only it has) undid it: one
// of its names is as it left it although that later call changed it. A
// duplicated CREATE run after its step's RENAME re-makes the moved name.
bool ran_again_after_undone(const rpclab::nfs::NfsCallRecord& record, size_t index, const NfsExportListing& end);

struct RecordClasses {
  NfsClassCounts all;
  std::map<std::string, NfsClassCounts> by_op;  // op_name -> its calls' classes
};

// Every call of `record`, against the export's root at the end.
RecordClasses classify(const rpclab::nfs::NfsCallRecord& record, const NfsExportListing& end);

// The names in `dir` (not recursive) with their kind, size and links.
NfsExportListing list_export(const std::string& dir);

}  // namespace rpclab::harness::nfs
