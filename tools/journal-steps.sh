#!/bin/bash
# What a journal growth step costs the call that takes it (src/server/journal.h):
# one raw-udp server with --journal and one persistent client making
# 327,680 NEXT calls on loopback, recorded; prints the trial's p50, p99.9
# and the latency of each call that took a step (record index 65,536 for
# the first step past the constructor's, then every STEP_RECORDS), which
# waits for the fallocate and the step's page faults.
#
#   tools/journal-steps.sh SERVER_BINARY [STEP_RECORDS] [RUNS]
#
# SERVER_BINARY is build/rpclab-server, or one built from another commit
# (the journal's steps were 65,536 records before 2026-12-07, 4,096 after).
# STEP_RECORDS defaults to 4096, RUNS to 3. Run it on an idle machine.
set -euo pipefail
if [ $# -lt 1 ] || [ ! -x "$1" ]; then
  echo "usage: $0 SERVER_BINARY [STEP_RECORDS] [RUNS] (SERVER_BINARY: an rpclab-server, e.g. build/rpclab-server)" >&2
  exit 2
fi
server=$1
step=${2:-4096}
runs=${3:-3}
client=$(dirname "$server")/rpclab-client
[ -x "$client" ] || client=$(dirname "$0")/../build/rpclab-client
work=$(mktemp -d)
trap 'kill "$spid" 2>/dev/null || true; rm -rf "$work"' EXIT
for run in $(seq "$runs"); do
  rm -f "$work"/*
  "$server" --transport raw-udp --journal "$work/journal.bin" --ready-file "$work/ready.json" 2>/dev/null &
  spid=$!
  for _ in $(seq 200); do [ -s "$work/ready.json" ] && break; sleep 0.05; done  # the server's start, polled
  port=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['port'])" "$work/ready.json")
  "$client" --transport raw-udp --server "127.0.0.1:$port" --op next --calls 327680 --warmup 0 --client-id 1 \
    --record "$work/calls.txt" >/dev/null 2>&1
  kill "$spid"
  wait "$spid" 2>/dev/null || true
  python3 - "$work/calls.txt" "$step" "$run" <<'PY'
import statistics, sys
lat = [int(line.split('\t')[2]) for line in open(sys.argv[1]).read().splitlines()[1:]]  # not a record: a call record's lines
step, run = int(sys.argv[2]), sys.argv[3]
s = sorted(lat)
at_steps = [lat[i] for i in range(65536, len(lat), step)]
print(f"run {run}: {len(lat)} calls, p50 {s[len(s) // 2] / 1e3:.1f} us, p99.9 {s[int(len(s) * 0.999)] / 1e3:.1f} us; "
      f"the {len(at_steps)} calls that took a step: median {statistics.median(at_steps) / 1e3:.0f} us, "
      f"max {max(at_steps) / 1e3:.0f} us")
PY
done
