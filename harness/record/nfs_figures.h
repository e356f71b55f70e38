// What an NFS trial and an NFS cell measured (experiment `nfs`, issue 23):
// each workload call's class from evidence on both sides (what the client
// was told, the export's end state; harness/nfs/nfs_classes.h decides),
// what the server itself said it ran, and the link's counters.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/record/faults.h"
#include "harness/record/maybe_null.h"
#include "harness/record/over_trials.h"
#include "harness/record/trial_counts.h"

namespace rpclab::harness {

// kReplayedToldSuccess: told NFS3_OK, and the end shows it ran again after
// a later call of its step undid it (a late copy of a CREATE re-making the
// name its step's RENAME had moved): harness/nfs/nfs_classes.h.
enum class NfsClass { kCorrect, kReplayedToldFailure, kLost, kIndeterminate, kCleanFailure, kNotJudged,
                      kReplayedToldSuccess };
std::string class_name(NfsClass c);  // "correct", "replayed_told_failure", ...

struct NfsClassCounts {
  uint64_t calls = 0, correct = 0, replayed_told_failure = 0, replayed_told_success = 0, lost = 0, indeterminate = 0,
           clean_failure = 0,
           not_judged = 0;
  void add(NfsClass c);
  NfsClassCounts& operator+=(const NfsClassCounts& o);
  uint64_t judged() const { return calls - not_judged; }
  // Told something that is not so: told "exists"/"no such" for its own
  // effect (a replay), or told success for an effect that is not there.
  uint64_t silent() const { return replayed_told_failure + replayed_told_success + lost; }
  uint64_t replayed() const { return replayed_told_failure + replayed_told_success; }
};
void to_json(nlohmann::json& j, const NfsClassCounts& c);
void from_json(const nlohmann::json& j, NfsClassCounts& c);

// One client's judged calls as the statistics over trials count them
// (trial_counts.h): silent = replayed (told failure or success) + lost;
// duplicate calls and extra executions = replayed (each ran at least twice).
ClientTrialCounts client_counts(uint32_t client_id, const NfsClassCounts& c);

// One thing a cell's restart event did or saw (harness/nfs/restart_event.h),
// in the order it happened.
struct NfsEventStep {
  std::string what;   // at_gate, replies_dropped, executed, requests_dropped, restarted, replies_pass, requests_pass
  double at_ms = 0;   // from the clients' start
  std::optional<nlohmann::json> server_counters;  // the server's own, read then (knfsd: /proc); absent when it says nothing
  std::optional<nlohmann::json> link;             // what the link's tool did (replies_pass: dropped_to_client)
  std::optional<std::string> note;
};
void to_json(nlohmann::json& j, const NfsEventStep& e);
void from_json(const nlohmann::json& j, NfsEventStep& e);

// One name in the export's root at the end of a trial: the evidence the
// classes read (harness/nfs/nfs_classes.h). Written to the cell's folder
// as export.json ({"c1-s3": {"kind": "file", "size": 4160, "links": 2}, ...}).
struct NfsExportEntry {
  std::string kind = "file";  // "dir" | "file" | "other"
  uint64_t size = 0;          // bytes (a file's; a directory's as the file system says)
  uint64_t links = 1;         // hard links to it (LINK's evidence beside the name)
};
void to_json(nlohmann::json& j, const NfsExportEntry& e);
void from_json(const nlohmann::json& j, NfsExportEntry& e);
using NfsExportListing = std::map<std::string, NfsExportEntry>;

// A server restart between a call's execution and its retransmission: at
// client `client`'s step `step` the replies were dropped, the server seen
// to execute the step's first call, restarted (its reply cache, in memory,
// emptied), and the replies let through again; what the client was then
// told for that call, its class, and the cause of its replay or the reason
// there was none.
struct NfsRestart {
  uint32_t client = 1;
  uint32_t step = 0;
  std::string name;                       // the step's name in the export (c1-s5)
  std::string transport;                  // udp | tcp: how the call could come again
  std::vector<NfsEventStep> events;
  std::optional<std::string> told;        // the step's call: NFS3ERR_EXIST, NFS3_OK, timeout, error
  std::optional<std::string> step_class;  // its class (class_name): replayed_told_failure, ...
  std::optional<std::string> cause;       // of a replay: "restart" (the same xid retransmitted to an empty cache)
  std::optional<std::string> why_no_replay;
};
void to_json(nlohmann::json& j, const NfsRestart& r);
void from_json(const nlohmann::json& j, NfsRestart& r);

// The speed view (preset nfs-speed): one operation's timed loop in a
// trial, every client's recorded calls together. Each operation runs on
// its own after the other's (harness/nfs/nfs_speed.h), closed loop.
struct NfsOpSpeed {
  std::string op;                             // getattr, mkdir
  std::optional<std::string> mount_options;   // a client that mounts: its mount for this op (noac for getattr)
  uint64_t warmup_calls = 0;                  // made first on the same connection or mount, not in the figures
  uint64_t calls = 0;                         // timed calls
  uint64_t errors = 0;                        // of them not told NFS3_OK: not in the percentiles
  double loop_s = 0;                          // the timed loop's wall time: first call's start to last call's end
  double ops_per_s = 0;                       // calls / loop_s (per client, summed over the clients)
  std::optional<double> p50_us;               // of the calls told NFS3_OK
  std::optional<double> p99_us;               // only from at least 100 of them
  // The server's own count of the operation over the op's run (the mount
  // and the warm-up included), and the counter it is ("proc3 GETATTR");
  // absent where the server keeps none (nfs-ganesha here).
  std::optional<uint64_t> server_count;
  std::optional<std::string> server_counter;
  bool reached_server = false;                // evidence that every call made reached the server
  std::string evidence;                       // that evidence, or why there is none
};
void to_json(nlohmann::json& j, const NfsOpSpeed& s);
void from_json(const nlohmann::json& j, NfsOpSpeed& s);

// A figure over a cell's trials: each trial's, their mean and its 95%
// Student-t interval (one trial: the interval is the value).
struct NfsOverTrials {
  std::vector<double> trials;
  double mean = 0, ci95_low = 0, ci95_high = 0;
};
void to_json(nlohmann::json& j, const NfsOverTrials& o);
void from_json(const nlohmann::json& j, NfsOverTrials& o);

// One operation's speed in a cell: the trials are the unit (each trial's
// p50, p99 and ops/s, then their mean over trials).
struct NfsOpSpeedCell {
  std::string op;
  std::optional<std::string> mount_options;
  uint64_t trials = 0;                       // ok trials with this op
  uint64_t calls = 0, errors = 0;            // timed calls over them
  uint64_t calls_made = 0;                   // warm-up and timed calls over them
  // The server's own count of the operation over them, and its counter,
  // where it keeps one (NfsOpSpeed::server_count).
  std::optional<uint64_t> server_count;
  std::optional<std::string> server_counter;
  std::optional<NfsOverTrials> p50_us;
  std::optional<NfsOverTrials> p99_us;       // when every trial had one
  std::optional<NfsOverTrials> ops_per_s;
  // Why the figures are left out: a trial whose calls were not all seen
  // to reach the server (its evidence).
  std::optional<std::string> withheld;
};
void to_json(nlohmann::json& j, const NfsOpSpeedCell& s);
void from_json(const nlohmann::json& j, NfsOpSpeedCell& s);

struct NfsTrial {
  std::optional<std::string> server;            // the NFS server row (harness/nfs/nfs_server.h)
  std::optional<std::string> client;            // the NFS client row (harness/nfs/nfs_client.h): rpclab, kernel
  // A client that mounts (kernel): its `mount -o` options, timeo and
  // retrans among them ("vers=4.1,proto=tcp,timeo=5,retrans=5,soft").
  std::optional<std::string> mount_options;
  std::optional<NfsClassCounts> classes;        // summed over the clients
  // The same by operation ("mkdir", "rename", ...: each call under its own
  // operation's name), summed over the clients.
  std::optional<std::map<std::string, NfsClassCounts>> classes_by_op;
  std::optional<TrialCounts> counts;            // per client (client_counts)
  std::optional<std::map<std::string, uint64_t>> told;  // every call's answer: NFS3_OK, NFS3ERR_EXIST, timeout, ...
  std::optional<std::string> server_end;        // "running", or how it ended ("killed by SIGSEGV")
  // What the server said it ran, read before and after the workload, in
  // its own words (knfsd: /proc counters; {} when it says nothing). Kept
  // for a person and the docs; nothing reads it back.
  std::optional<nlohmann::json> server_counters;
  // Calls the server's reply cache answered during the workload, by its
  // own counters (knfsd); absent when the server does not say.
  std::optional<uint64_t> reply_cache_hits;
  std::optional<TrialFaults> faults;
  std::optional<std::vector<std::string>> client_exits;
  std::optional<double> client_wall_s;
  std::optional<NfsRestart> restart;  // a cell with a restart event (NfsCellOptions::restart_at)
  // A cell whose faults have timed events (the reset column): each
  // occurrence as netem::EventRunner recorded it (when, and what its tool
  // did: ss -K's closed sockets, the reject rules' counts), its phases'
  // warnings, and why the trial is no measurement when an event never
  // happened or struck nothing (events_not_met): then it is not counted.
  std::optional<std::vector<EventOccurrence>> events;
  std::optional<std::vector<std::string>> warnings;
  std::optional<std::string> events_not_met;
  std::optional<std::vector<NfsOpSpeed>> speed;  // a speed cell (NfsCellOptions::speed): each op's timed loop
  std::optional<bool> latency_pinned;            // a speed cell: /dev/cpu_dma_latency held at 0 while it ran
};

struct NfsCell {
  std::optional<std::string> server;
  MaybeNull<NfsClassCounts> classes;  // summed over the ok trials
  std::optional<std::map<std::string, NfsClassCounts>> classes_by_op;  // summed over the ok trials that say
  // silent = replayed (told failure or success) + lost, duplicate_calls =
  // replayed, over the judged calls (the trials method of over_trials.h).
  std::optional<OverTrialsFigures> over_trials;
  std::optional<std::vector<std::string>> server_ends;  // each ok trial's, when any was not "running"
  std::optional<uint64_t> reply_cache_hits;             // summed over the ok trials that say
  std::optional<CellFaults> faults;
  std::optional<double> client_wall_s;  // summed over the ok trials
  std::optional<std::vector<NfsOpSpeedCell>> speed;  // a speed cell: each op over the ok trials
  std::optional<bool> latency_pinned;                // a speed cell: every trial held /dev/cpu_dma_latency at 0
};

}  // namespace rpclab::harness
