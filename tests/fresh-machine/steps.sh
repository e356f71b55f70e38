#!/bin/bash
# Inside the fresh root (enter-root.sh), as root with a clean environment:
# what a new user of rpclab does, in README.md's words. Each step's name,
# exit code and seconds go to steps.tsv, which run.sh prints at the end.
# A failed step does not stop the later ones (each says something of its own)
# except where a later step cannot start without it.
set -uo pipefail
here=/opt/fresh-machine
clone=/root/rpclab
record=$here/steps.tsv
: >"$record"

step() {
  local name=$1 t0 rc
  shift
  printf '\n=== fresh-machine step: %s (%s)\n' "$name" "$(date -u +%T)"
  t0=$(date +%s)
  "$@"
  rc=$?
  printf '%s\t%s\t%s\n' "$name" "$rc" "$(( $(date +%s) - t0 ))" >>"$record"
  printf '=== fresh-machine step: %s: exit %s in %s s\n' "$name" "$rc" "$(( $(date +%s) - t0 ))"
  return "$rc"
}

starts_without_make() {
  echo "Debian $(cat /etc/debian_version); /root is $(stat -c %a /root); make is $(command -v make || echo absent)"
  [[ $(stat -c %a /root) == 700 ]] && ! command -v make >/dev/null
}

# The network namespaces the tests and the run made are theirs to remove
# (`ip netns add` names each in /run/netns). Any left is a failure, and is
# removed here.
no_namespaces_left() {
  local left
  left=$(ls -A /run/netns 2>/dev/null)
  echo "network namespaces in /run/netns: ${left:-none}"
  [[ -z $left ]] && return 0
  for ns in $left; do ip netns delete "$ns"; done
  return 1
}

# `make run-dependability PRESET=nfs-quick` as docs/nfs.md gives it, then
# its trials (results/latest/trials.jsonl): every one ran, none skipped.
nfs_quick_runs_every_row() {
  make run-dependability PRESET=nfs-quick || return
  local trials=results/latest/trials.jsonl n skipped
  [[ -s $trials ]] || { echo "the run wrote no $trials"; return 1; }
  n=$(wc -l <"$trials")
  skipped=$(grep '"status":"skipped"' "$trials" | grep -o '"reason":"[^"]*"' | sort | uniq -c)
  echo "nfs-quick: $n trials; skipped: ${skipped:-none}"
  [[ -z $skipped ]]
}

step "a new Debian 12: /root 0700, no make" starts_without_make
step "README: $(cat "$here/install-first")" bash -c "$(cat "$here/install-first")" || exit 1
step "git clone (the commit under test) into /root" git clone -q "$here/rpclab.bundle" "$clone" || exit 1
cd "$clone" || exit 1
git -c advice.detachedHead=false checkout -q "$(cat "$here/commit")" || exit 1
# RPCLAB_FRESH_TEST_FLAGS of run.sh, if any: TEST_FLAGS for make test.
test_flags=$(cat "$here/test-flags" 2>/dev/null)
# run.sh's RPCLAB_FRESH_CCACHE: compile through the cache the host's build
# filled (CMakeLists.txt finds ccache, which README's make installs). Paths
# below the clone are hashed relative to it, so the host's clone elsewhere
# hits; the compiler is checked by its content, not its file date.
if [[ -e $here/use-ccache ]]; then
  export CCACHE_DIR=/var/cache/rpclab-ccache CCACHE_BASEDIR=$clone CCACHE_NOHASHDIR=1 CCACHE_COMPILERCHECK=content
fi
# The NFS preset's quick run first, before `make test` installs the test
# packages: its own `make` must install the NFS servers it runs (issue 42),
# and no row of it may be skipped (a missing package shows as a skipped row).
step "make run-dependability PRESET=nfs-quick (first; no row skipped)" nfs_quick_runs_every_row
step "make test" make test ${test_flags:+"TEST_FLAGS=$test_flags"}
if [[ -e $here/use-ccache ]] && command -v ccache >/dev/null; then
  ccache --print-stats >"$here/ccache.tsv" 2>/dev/null
  awk -F'\t' '$1 == "direct_cache_hit" || $1 == "preprocessed_cache_hit" {hit += $2}
              $1 == "cache_miss" {miss = $2}
              END {printf "%d compiles answered by the cache, %d compiled\n", hit, miss}' \
    "$here/ccache.tsv" >"$here/ccache-stats"
fi
step "make run-dependability PRESET=quick" make run-dependability PRESET=quick
step "no network namespace left" no_namespaces_left
exit 0
