// harness/nfs/: the NFS experiment (issue 23): an NFS server in the
// server's namespace (ganesha_server.h), rpclab-nfs-client in the
// client's, a fault on the link between them, and the classes of the
// workload's calls from evidence (this file). May include harness/run and
// what lies below it (netem, process, src).
//
// This file: each call's class, from what the client was told (its record)
// and the export's end state (which names exist):
//
//   told        | effect at the end | class
//   NFS3_OK     | there             | correct
//   NFS3_OK     | not there         | lost
//   EXIST/NOENT | there             | replayed, told failure (the step's own
//               |                   | earlier execution made it: names are
//               |                   | unique per (client, seq); Levy's
//               |                   | silent error in NFS form)
//   other error | there             | indeterminate (told failure, it ran)
//   other error | not there         | clean failure
//
// A creator's (MKDIR, CREATE) effect is its name existing; a remover's
// (RMDIR, REMOVE) its name being gone, judged only when the step's
// creator before it was told NFS3_OK (else the name may never have
// existed). An idempotent call (GETATTR) leaves no effect to judge. Only
// a step's last call is judged from the end state; the
// calls before it in the same step are counted as not judged.
#pragma once

#include <cstdint>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "harness/record/nfs_figures.h"
#include "nfs/nfs_call_record.h"

namespace rpclab::harness::nfs {

using harness::NfsClass;
using harness::NfsClassCounts;

// One call, told `call`, whose effect is (or is not) there at the end.
NfsClass class_of(const rpclab::nfs::NfsCall& call, bool effect_there);

// Every call of `record`, against the names found in the export's root.
NfsClassCounts classify(const rpclab::nfs::NfsCallRecord& record, const std::set<std::string>& names_there);

}  // namespace rpclab::harness::nfs
