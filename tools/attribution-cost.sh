#!/bin/bash
# What giving each extra execution its cause costs (issue 13), as ratios of
# calls/s taken in one sitting, with and without each part, alternated:
#
#   1. the execution journal with the kernel's receive stamp: a sunrpc-udp
#      server with --journal against one without, 100,000 NEXT calls of
#      one client on loopback, 5 pairs;
#   2. the wire capture: the quick preset's udp-dup cells (two-host, x4,
#      clean with 50,000 calls a client and dup 5% with 5,000, without and
#      with the reply cache) with each backend (--wire-capture bpf, nflog)
#      against off, 6 rounds of 3 trials (as root).
#
#   tools/attribution-cost.sh BUILD_DIR OUT_DIR    (OUT_DIR must not exist)
#
# Hold /dev/cpu_dma_latency at 0 meanwhile on a VM, and run it on an
# otherwise idle machine: it compares timings.
set -euo pipefail
if [ $# -ne 2 ]; then
  echo "usage: $0 BUILD_DIR OUT_DIR (OUT_DIR must not exist; it gets the run folders)" >&2
  exit 2
fi
build=$1
out=$2
if [ -e "$out" ]; then
  echo "$0: $out exists; give a new folder" >&2
  exit 2
fi
mkdir -p "$out"

journal_pair() {
  local mode=$1 dir=$out/journal-$1-$2
  mkdir "$dir"
  local args=(--transport sunrpc-udp --listen 127.0.0.1:0 --ready-file "$dir/ready")
  [ "$mode" = on ] && args+=(--journal "$dir/journal.bin")
  "$build/rpclab-server" "${args[@]}" >"$dir/server.log" 2>&1 &
  local pid=$!
  for _ in $(seq 100); do [ -s "$dir/ready" ] && break; sleep 0.05; done
  local port
  port=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['port'])" "$dir/ready")
  local start end
  start=$(date +%s%N)
  "$build/rpclab-client" --transport sunrpc-udp --server "127.0.0.1:$port" --op next --calls 100000 \
    --client-id 1 --record "$dir/calls.rec" >/dev/null 2>"$dir/client.log"
  end=$(date +%s%N)
  kill "$pid"
  wait "$pid" || true
  echo "$mode $(( 100000 * 1000000000 / (end - start) ))" >>"$out/journal.txt"
}

for i in 1 2 3 4 5; do journal_pair on "$i"; journal_pair off "$i"; done
python3 - "$out/journal.txt" <<'EOF'
import sys
s = {"on": 0, "off": 0}
for line in open(sys.argv[1]):
    mode, rate = line.split()
    s[mode] += int(rate)
print(f"journal + kernel stamp: calls/s with / without = {s['on'] / s['off']:.3f} (5 pairs, 100,000 calls each)")
EOF

if [ "$(id -u)" != 0 ]; then
  echo "wire capture: skipped (needs root: namespaces, nftables and the capture)"
  exit 0
fi
# A clean cell makes 2 datagrams a call and runs ~10 times faster than a
# storm cell, so it gets 10 times the calls: trials of a few seconds, where
# the clients' start does not weigh. Six rounds take the backends in every
# order, so each comes first, second and last twice (rounds two minutes
# apart swing by up to 10%).
orders=("bpf nflog off" "nflog off bpf" "off bpf nflog" "bpf off nflog" "off nflog bpf" "nflog bpf off")
for i in 0 1 2 3 4 5; do
  for capture in ${orders[$i]}; do
    for link in clean:0:50000 dup5:5:5000; do
      IFS=: read -r name dup calls <<<"$link"
      "$build/rpclab" dependability --preset quick --tables udp-dup --transports sunrpc-udp --dup "$dup" \
        --drc 0,1024 --fault-calls "$calls" --trials 3 --clients 4 --wire-capture "$capture" \
        --out "$out/capture-$capture-$name-$i" >"$out/capture-$capture-$name-$i.log" 2>&1
    done
  done
done
python3 - "$out" <<'EOF'
import collections, glob, json, os, sys
backends = ("bpf", "nflog")
# label -> backend -> round -> calls/s (the cell's, over its 3 trials)
rates = collections.defaultdict(lambda: collections.defaultdict(dict))
for path in glob.glob(f"{sys.argv[1]}/capture-*/results.jsonl"):
    _, capture, _, rnd = os.path.basename(os.path.dirname(path)).split("-")
    for line in open(path):
        r = json.loads(line)
        rates[r["label"]][capture][rnd] = r.get("calls_per_s", 0)
for label, s in sorted(rates.items()):
    parts = []
    for b in backends:
        per_round = sorted(s[b][k] / s["off"][k] for k in s["off"])
        parts.append(f"{b} {sum(s[b].values()) / sum(s['off'].values()):.3f} "
                     f"(rounds {per_round[0]:.2f} to {per_round[-1]:.2f})")
    print(f"wire capture: {label}: calls/s with / without: {', '.join(parts)}; {len(s['off'])} rounds of 3 trials")
EOF
