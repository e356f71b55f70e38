#!/usr/bin/env bash
# Installs the Debian packages rpclab needs, or says exactly how to.
#   tools/deps.sh [build|test|nfs|fuzz|fresh-machine|runtime]
#   tools/deps.sh --list runtime   prints "<package> <need>" lines, need one of
#                                    required | faults | optional (rpclab reads
#                                    this list at build time to check a
#                                    --server-host; nothing is installed)
# As root it runs apt-get itself; otherwise it prints the one command to run
# and exits 1. Packages already present are left alone.
set -euo pipefail

build_packages=(
  cmake ninja-build g++ make pkg-config ccache      # ccache: CMakeLists.txt uses it when present
  rpcsvc-proto libtirpc-dev rpcbind                 # rpcgen, libtirpc, rpcinfo
  libnfs-dev                                        # rpclab-nfs-libnfs: libnfs 4.0, the NFS client that resends after a reconnect
  libgrpc++-dev libprotobuf-dev protobuf-compiler protobuf-compiler-grpc
  grpc-proto                                        # health.proto, built into the server for reflection
  libxmlrpc-c++8-dev libjsonrpccpp-dev libssl-dev curl  # xmlrpc (xmlrpc-c), jsonrpc (+ base64 from libcrypto); curl for interop tests
  libgtest-dev libcli11-dev nlohmann-json3-dev libfmt-dev libboost-dev
  iproute2 nftables util-linux procps               # ip/tc, nft, unshare/taskset, ps
  iptables                                          # iptables-legacy: the reset in the knfsd guest (no nft netdev, no ss -K there)
  user-mode-linux busybox-static kmod               # netem where the host kernel has none; modprobe
  gnuplot-nox sockperf                              # plots, speed calibration
  help2man                                          # man pages from --help
  libpcap-dev                                       # the wire capture (nflog) for the causes of duplicates
  zlib1g-dev                                        # a shipped run's results.jsonl.gz (docs/results/runs/), read in place
  libhiredis-dev redis-server                       # --at-most-once-shared: the table in Redis (hiredis 0.14), and its tests' Redis
  haproxy nginx libnginx-mod-stream caddy           # the paths preset's proxies (harness/paths/): HAProxy 2.6, nginx 1.22 (+ stream for Sun RPC), Caddy 2.6
  libthrift-dev thrift-compiler                     # adapters/thrift: Apache Thrift 0.17, the first adapter (docs/adapters.md)
  golang-go ca-certificates                         # adapters/grpc-go: Go 1.19; its modules (go.sum) come from proxy.golang.org over HTTPS
                                                    # (adapters/tonic needs Rust 1.88 or newer, which Debian 12 does not package (1.63):
                                                    #  rustup.rs; without it the tonic row is skipped with that reason, adapters/tonic/toolchain.sh)
  clang libbpf-dev bpftool                          # ... and its cheaper eBPF backend
)
# The NFS presets' servers and tools (`make run-dependability PRESET=nfs|nfs-quick`
# and `make run-speed PRESET=nfs` install them, as `make test` does; issue 42):
# nfs-ganesha, nfs-ganesha-vfs: the NFS cells' user-space server (issue 23; harness/nfs/).
# nfs-kernel-server: rpc.nfsd, exportfs, rpc.mountd for knfsd, which runs inside the
# user-mode-linux guest (harness/nfs/knfsd_server.h); its service must not start on
# the host (whose kernel may have no nfsd), so it is installed under a policy-rc.d.
# tcpdump: the NFS trials' captures (harness/nfs/client_pcap.h).
nfs_packages=(nfs-ganesha nfs-ganesha-vfs nfs-kernel-server tcpdump)
# make test only: a gRPC client that is not ours (reflection, health), and
# the pandas recipe of docs/results-format.md (Debian's python3, not pyenv's),
# and a browser that opens report.html as a person would.
# openssh-server: the --server-host tests run a real sshd in each of two namespaces.
test_packages=(python3 python3-grpcio python3-protobuf grpc-proto python3-pandas chromium openssh-server
               "${nfs_packages[@]}")
# runtime: a machine that only runs rpclab-server/rpclab-client (a --server-host):
# the shared libraries they link (Debian 12's names), the tools the harness runs
# there, and what faults there need. rpclab checks a remote against this list.
runtime_packages=(
  libtirpc3 libgrpc++1.51 libgrpc29 libabsl20220623 libprotobuf32
  libjsonrpccpp-server0 libjsonrpccpp-common0 libjsonrpccpp-client0 libmicrohttpd12 libjsoncpp25
  libxmlrpc-c++8v5 libxmlrpc-core-c3 libcurl4 libssl3
  libhiredis0.14                                    # rpclab-server --at-most-once-shared
  util-linux coreutils                              # setsid (the dead-man switch), sleep, date
)
runtime_fault_packages=(iproute2 nftables iptables) # ip, tc (netem, ifb), nft; iptables-legacy for a reset on the netem backend
runtime_optional_packages=(rpcbind)                 # sunrpc cells that bind through rpcbind
fuzz_packages=(clang libclang-rt-14-dev llvm)
fresh_machine_packages=(debootstrap util-linux git)  # tests/fresh-machine/run.sh: a new Debian root

if [[ "${1:-}" == "--list" ]]; then
  [[ "${2:-}" == "runtime" ]] || { echo "usage: $0 --list runtime" >&2; exit 2; }
  for p in "${runtime_packages[@]}"; do echo "$p required"; done
  for p in "${runtime_fault_packages[@]}"; do echo "$p faults"; done
  for p in "${runtime_optional_packages[@]}"; do echo "$p optional"; done
  exit 0
fi

case "${1:-build}" in
  build) wanted=("${build_packages[@]}") ;;
  test) wanted=("${build_packages[@]}" "${test_packages[@]}") ;;
  nfs) wanted=("${build_packages[@]}" "${nfs_packages[@]}") ;;
  fuzz) wanted=("${build_packages[@]}" "${fuzz_packages[@]}") ;;
  fresh-machine) wanted=("${fresh_machine_packages[@]}") ;;
  runtime) wanted=("${runtime_packages[@]}" "${runtime_fault_packages[@]}" "${runtime_optional_packages[@]}") ;;
  *) echo "usage: $0 [build|test|nfs|fuzz|fresh-machine|runtime] | --list runtime" >&2; exit 2 ;;
esac

missing=()
for p in "${wanted[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

cmd="apt-get install -y --no-install-recommends ${missing[*]}"
if [[ $(id -u) -ne 0 ]]; then
  echo "rpclab needs these Debian packages: ${missing[*]}" >&2
  echo "Install them as root, then run make again:" >&2
  echo "  sudo apt-get update && sudo $cmd" >&2
  exit 1
fi
echo "rpclab: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
# A third-party source that cannot be reached must not stop Debian's own.
apt-get update -qq >/dev/null 2>&1 || echo "rpclab: apt-get update reported errors; trying the install anyway" >&2
# Services installed here are for rpclab's namespaces and guests, never the
# host's own: while apt runs, a policy-rc.d (unless there is one) denies every
# start (nfs-kernel-server's would fail on a kernel without nfsd).
policy=/usr/sbin/policy-rc.d
if [[ ! -e $policy ]]; then
  printf '#!/bin/sh\n# rpclab tools/deps.sh: no service starts while it installs.\nexit 101\n' > "$policy"
  chmod 755 "$policy"
  trap 'rm -f "$policy"' EXIT
fi
if ! $cmd >/tmp/rpclab-apt.log 2>&1; then
  tail -20 /tmp/rpclab-apt.log >&2
  echo "rpclab: '$cmd' failed (full log: /tmp/rpclab-apt.log)" >&2
  exit 1
fi
