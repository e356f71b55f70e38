#!/bin/bash
# What bounds a transport's call: one rpclab-server and one rpclab-client
# on loopback, 12-byte ECHOs on a kept connection, and for the server
#   - CPU per call (user + system, /proc/PID/stat, over CALLS calls),
#   - system calls per call (strace -c; those made at least once a call),
#   - packets per call on the wire (tcpdump on lo, both directions),
#   - where its samples fall, by library and by symbol (perf record -g),
# and the client's samples by library. Timings are noisy here: compare
# transports from one sitting, not across days.
#
#   tools/profile-transport.sh [BUILD] TRANSPORT [CALLS [FLAG...]]   (as root: perf, tcpdump, /dev/cpu_dma_latency)
#
# FLAGs go to both programs, e.g.
#   tools/profile-transport.sh build xmlrpc 10000
#   tools/profile-transport.sh build xmlrpc-pstream 10000 --tcp-nodelay
set -euo pipefail
build=build
if [[ $# -ge 2 && -x "$1/rpclab-server" ]]; then build=$1; shift; fi
transport=${1:?usage: $0 [BUILD] TRANSPORT [CALLS]}
calls=${2:-5000}
shift $(($# < 2 ? $# : 2))
flags=("$@")
for tool in perf strace tcpdump python3; do
  command -v "$tool" >/dev/null || { echo "$0: $tool is not installed (apt-get install linux-perf strace tcpdump python3)" >&2; exit 2; }
done
[[ $(id -u) -eq 0 ]] || { echo "$0: run as root (perf on another process, tcpdump, /dev/cpu_dma_latency)" >&2; exit 2; }

dir=$(mktemp -d /tmp/rpclab-profile.XXXXXX)
server_pid=
cleanup() { [[ -n $server_pid ]] && kill "$server_pid" 2>/dev/null; rm -rf "$dir"; }
trap cleanup EXIT
# As the speed experiment does: no idle wake-up delay in the figures.
exec 3>/dev/cpu_dma_latency && printf '\x00\x00\x00\x00' >&3

"$build/rpclab-server" --transport "$transport" "${flags[@]}" --ready-file "$dir/ready" >"$dir/server.log" 2>&1 &
for _ in $(seq 100); do [[ -s $dir/ready ]] && break; sleep 0.1; done
[[ -s $dir/ready ]] || { echo "$0: the $transport server did not start:" >&2; cat "$dir/server.log" >&2; exit 1; }
read -r port server_pid < <(python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(r['port'], r['pid'])" "$dir/ready")
client=("$build/rpclab-client" --transport "$transport" "${flags[@]}" --server "127.0.0.1:$port" --op echo --size 12)
cpu_ticks() { awk '{print $14 + $15}' "/proc/$server_pid/stat"; }

"${client[@]}" --calls 1000 >/dev/null 2>&1  # warm: connection, allocator, caches
before=$(cpu_ticks)
line=$("${client[@]}" --calls "$calls" 2>&1 | tail -n 1)
after=$(cpu_ticks)
hz=$(getconf CLK_TCK)
echo "$transport, $calls ECHOs of 12 B, one client: ${line#rpclab-client: }"
python3 -c "import sys; print(f'server CPU per call: {(int(sys.argv[2]) - int(sys.argv[1])) / int(sys.argv[3]) * 1e6 / int(sys.argv[4]):.1f} us')" \
  "$before" "$after" "$hz" "$calls"

strace -f -c -o "$dir/strace" -p "$server_pid" 2>/dev/null &
tracer=$!
sleep 0.5
"${client[@]}" --calls "$calls" >/dev/null 2>&1
sleep 0.3
kill -INT "$tracer"; wait "$tracer" 2>/dev/null || true
echo "server system calls per call:"
awk -v n="$calls" '$4 ~ /^[0-9]+$/ && $NF != "total" && $4 >= n * 0.9 {printf "  %-14s %.2f\n", $NF, $4 / n; s += $4}
                   END {printf "  %-14s %.2f\n", "all of these", s / n}' "$dir/strace"

tcpdump -i lo -nn -q -w "$dir/wire.pcap" "tcp port $port or udp port $port" 2>"$dir/tcpdump.log" &
sniffer=$!
for _ in $(seq 100); do grep -q "listening on" "$dir/tcpdump.log" && break; sleep 0.05; done
"${client[@]}" --calls "$calls" >/dev/null 2>&1
sleep 0.3
kill -INT "$sniffer"; wait "$sniffer" 2>/dev/null || true
packets=$(tcpdump -nn -r "$dir/wire.pcap" 2>/dev/null | wc -l)
dropped=$(grep -o "[0-9]* packets dropped by kernel" "$dir/tcpdump.log" || echo "0 packets dropped")
echo "packets per call on loopback (both ways, ACKs included): $(python3 -c "print(f'{$packets / $calls:.1f}')") ($dropped)"

perf record -q -g -o "$dir/server.data" -p "$server_pid" -- sleep 3 >/dev/null 2>&1 &
recorder=$!
sleep 0.3
perf record -q -g -o "$dir/client.data" -- "${client[@]}" --calls "$calls" >/dev/null 2>&1
wait "$recorder" || true
top() { perf report -i "$1" --no-children --sort "$2" --stdio 2>/dev/null | awk -v n="$3" '/^ +[0-9.]+%/ && k++ < n'; }
echo "server samples by library:"; top "$dir/server.data" dso 6
echo "server samples by symbol:"; top "$dir/server.data" dso,sym 10
echo "client samples by library:"; top "$dir/client.data" dso 6
