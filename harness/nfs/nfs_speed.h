// The NFS speed view (preset nfs-speed): what one operation costs on each
// server, client, version and transport, without faults. In a speed cell
// (NfsCellOptions::speed) each operation of --ops runs on its own, one
// after the other: the clients made for it run `warmup` unrecorded steps
// and then the timed loop, closed loop (a call waits for the one before),
// and the server's counters are read around it. This file: the figures of
// one operation's run from its call records and the server's count, and a
// cell's figures over its trials. Pure functions, unit-tested.
//
// A figure counts only when the calls reached the server: a server's own
// counter of the operation (knfsd's /proc/net/rpc/nfsd) at least as large
// as the calls made, or a client that keeps no cache (rpclab's: every
// recorded NFS status is the server's reply). A kernel mount answers
// stat(2) from its attribute cache unless mounted noac; the cell mounts
// GETATTR's run with noac (nfs_client.h) and the counter says whether the
// calls went to the wire.
#pragma once

#include <optional>
#include <vector>

#include "harness/nfs/nfs_server.h"
#include "harness/record/nfs_figures.h"
#include "nfs/nfs_call_record.h"

namespace rpclab::harness::nfs {

// A cell's speed runs: each operation of `ops` on its own ("getattr,mkdir"
// -> getattr, then mkdir). Throws std::invalid_argument for an unknown one.
std::vector<rpclab::nfs::NfsOp> speed_ops(const std::string& ops);

// Whether a client that mounts mounts `op`'s run with noac.
bool needs_noac(rpclab::nfs::NfsOp op);

// `op`'s timed loop from every client's record of it (each record holds
// only that op's recorded calls): the calls and those not told NFS3_OK,
// p50 and p99 (nearest rank, of the calls told NFS3_OK; p99 from 100 on),
// the loop's wall time (a client's first call's start to its last call's
// end; the longest client's) and ops/s (each client's calls over its own
// loop, summed: one client's clock is not another's).
NfsOpSpeed op_speed(rpclab::nfs::NfsOp op, const std::vector<rpclab::nfs::NfsCallRecord>& clients,
                    uint64_t warmup_calls);

// Whether every call made (warm-up and timed) reached the server, and the
// evidence: the server's own count, else a client that keeps no cache.
void judge_reached(NfsOpSpeed& s, const std::optional<NfsServer::OpCount>& counted, bool every_call_on_wire);

// Each operation over the ok trials' runs of it, in the first trial's
// order: the mean of the trials' p50 and p99 (each when every trial had
// one) and ops/s; no figures, and why, when a trial's calls were not all seen to
// reach the server.
std::vector<NfsOpSpeedCell> speed_over_trials(const std::vector<std::vector<NfsOpSpeed>>& trials);

// The block of the speed view's cells (CellConfig::block): the nfs-speed
// preset's, shown by the nfs-speed table and left out of the others.
inline constexpr const char* kSpeedBlock = "speed";

// A figure over trials: each trial's, their mean and 95% t-interval.
NfsOverTrials over_trials_of(const std::vector<double>& per_trial);

}  // namespace rpclab::harness::nfs
