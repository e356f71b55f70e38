#!/usr/bin/env bash
# A fresh machine, every CI run. Proves that README.md's first steps work
# from nothing: a minimal Debian 12 root (debootstrap --variant=minbase,
# from deb.debian.org) is made a real root in a private mount and PID
# namespace (enter-root.sh), the commit under test is cloned into /root
# (0700), and there steps.sh installs only what README.md says to install
# first, then runs `make run-dependability PRESET=nfs-quick` (docs/nfs.md;
# before anything else installs the NFS servers, and no row skipped), then
# `make test` and `make run-dependability PRESET=quick` as README.md writes
# them. Each step is printed with its exit code and time,
# and the end says what the run proved.
#
#   tests/fresh-machine/run.sh [--no-cache]
#
# RPCLAB_FRESH_CCACHE=DIR, when set, is a ccache folder the fresh machine's
# build compiles through (bound at /var/cache/rpclab-ccache inside). CI's
# first stage has just compiled the same commit with the same Debian
# compiler into it, so this stage costs the install, the links and the
# tests, not a third build. The proof holds: a header the fresh machine
# lacks still fails (ccache finds every included file, or compiles for
# real), and the summary says how many compiles the cache answered.
#
# RPCLAB_FRESH_TEST_FLAGS, when set, is given to the fresh machine's
# `make test` as TEST_FLAGS (CI passes a --gtest_filter that leaves out
# the long runs its own `make test` has just made on the same commit: what
# the fresh machine proves is that the packages and the build come from
# README.md's steps, and every test program still runs there).
#
# As root; works on a kernel without netem. The root lives in
# $RPCLAB_FRESH_WORK (default /var/tmp/rpclab-fresh-machine) and is removed
# however the run ends; a rerun first removes what a killed run left. The
# debootstrapped root is kept as a tarball in $RPCLAB_FRESH_CACHE (default
# /var/cache/rpclab) for the next run; --no-cache, or a machine without the
# tarball (CI), makes it anew. Exit 0 only when every step passed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
work=${RPCLAB_FRESH_WORK:-/var/tmp/rpclab-fresh-machine}
cache=${RPCLAB_FRESH_CACHE:-/var/cache/rpclab}/debian12-minbase.tar.gz
mirror=http://deb.debian.org/debian
marker=.rpclab-fresh-machine  # in $work: the folder is this script's to remove
root=$work/root
inside=$root/opt/fresh-machine  # steps.sh, the clone's bundle, the steps' record
use_cache=1

say() { printf 'fresh-machine: %s\n' "$*"; }
die() { say "$*" >&2; exit 1; }
now() { date +%s; }

# The namespace holder of an earlier run, if it is still alive: "pid start".
stop_leftover_run() {
  local pid start
  [[ -r $work/unshare.pid ]] || return 0
  read -r pid start <"$work/unshare.pid" || return 0
  [[ -r /proc/$pid/stat && $(awk '{print $22}' "/proc/$pid/stat") == "$start" ]] || return 0
  say "stopping the fresh machine of an earlier run (unshare pid $pid)"
  kill -KILL "$pid" 2>/dev/null || true  # --kill-child takes its PID namespace, and so every mount, with it
  for _ in $(seq 100); do [[ -e /proc/$pid ]] || break; sleep 0.1; done
}

# Removes the work folder and everything in it; refuses a folder it did not make.
remove_work() {
  [[ -e $work ]] || return 0
  [[ -e $work/$marker ]] || die "$work exists and was not made by this script; remove it or set RPCLAB_FRESH_WORK"
  stop_leftover_run
  # The mounts were made in a private namespace; none should show here. If one
  # does (a bind leaked by hand), unmount it rather than delete through it.
  awk -v w="$work" '$5 == w || index($5, w "/") == 1 {print $5}' /proc/self/mountinfo | sort -r |
    while read -r m; do umount -l "$m"; done
  rm -rf --one-file-system "$work"
}

# The minimal Debian 12 root, from the cache or from debootstrap.
make_root() {
  local t0; t0=$(now)
  if [[ $use_cache -eq 1 && -s $cache ]]; then
    mkdir "$root" && tar -C "$root" --numeric-owner -xzf "$cache"
    made_root="unpacked from $cache (made $(date -u -r "$cache" +%F), debootstrap minbase bookworm) in $(( $(now) - t0 )) s"
    return
  fi
  say "debootstrap --variant=minbase bookworm $mirror (log: $work/debootstrap.log)"
  if ! debootstrap --variant=minbase bookworm "$root" "$mirror" >"$work/debootstrap.log" 2>&1; then
    tail -20 "$work/debootstrap.log" >&2
    die "debootstrap failed"
  fi
  made_root="debootstrap --variant=minbase bookworm from $mirror in $(( $(now) - t0 )) s"
  mkdir -p "$(dirname "$cache")"
  tar -C "$root" --numeric-owner -czf "$cache.tmp" . && mv "$cache.tmp" "$cache" && made_root+=", cached in $cache"
}

# The line README.md gives to run before the two commands (apt-get ...).
# README.md is read whole before awk sees it: awk stops at the first match,
# and a writer still piping into it would die of SIGPIPE, which pipefail
# makes this function's status (CI, 2026-12-07: the stage exited 141 in
# 0 s, silent, once the line moved up to README's first screen).
first_install_line() {
  local readme; readme=$(git -C "$repo" show HEAD:README.md)
  awk '/^## The two commands/ {in_section = 1; next} /^## / {in_section = 0}
       in_section && /^    (sudo )?apt-get / {sub(/^    /, ""); sub(/ +#.*$/, ""); print; exit}' <<<"$readme"
}

# The commands README.md must show, exactly as steps.sh runs them.
check_readme_commands() {
  local readme; readme=$(git -C "$repo" show HEAD:README.md)
  for cmd in "make test" "make run-dependability PRESET=quick"; do
    grep -qF "$cmd" <<<"$readme" || die "README.md no longer shows \`$cmd\`; change tests/fresh-machine/steps.sh with it"
  done
}

prepare_inside() {
  mkdir -p "$inside"
  cp "$here/steps.sh" "$inside/steps.sh"
  printf '%s\n' "$1" >"$inside/install-first"
  git -C "$repo" bundle create "$inside/rpclab.bundle" HEAD 2>/dev/null
  git -C "$repo" rev-parse HEAD >"$inside/commit"
  printf '%s\n' "${RPCLAB_FRESH_TEST_FLAGS:-}" >"$inside/test-flags"
  if [[ -n ${RPCLAB_FRESH_CCACHE:-} ]]; then
    [[ -d $RPCLAB_FRESH_CCACHE ]] || die "RPCLAB_FRESH_CCACHE=$RPCLAB_FRESH_CCACHE is not a folder"
    touch "$inside/use-ccache"
    # Counted from zero, so the summary's figures are the fresh machine's own.
    command -v ccache >/dev/null && CCACHE_DIR=$RPCLAB_FRESH_CCACHE ccache --zero-stats >/dev/null
  fi
  cp -L /etc/resolv.conf "$root/etc/resolv.conf"  # what DHCP would have written on a new machine
  # What a booted Debian 12 has and a debootstrap root lacks: /etc/mtab,
  # which nfs-ganesha's VFS reads to find an export's file system (without
  # it every ganesha cell of nfs-quick failed, its MNT answered 13; CI,
  # 2026-12-07). rpclab says so and skips ganesha where it is missing.
  [[ -e $root/etc/mtab ]] || ln -s ../proc/self/mounts "$root/etc/mtab"
  # This network's own certificate authorities, as its admin gives every
  # new machine on it: here the registries' HTTPS passes an egress proxy
  # whose CA is no Debian CA, so without them Go's module downloads fail
  # "x509: certificate signed by unknown authority" (CI, 2026-11-28).
  # Debian's ca-certificates adds them to the bundle when it installs.
  if compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
    mkdir -p "$root/usr/local/share/ca-certificates"
    cp -L /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/"
    network_cas=$(cd /usr/local/share/ca-certificates && ls -- *.crt | tr '\n' ' ')
  fi
}

# The fresh machine, as a background child so that a trap can stop it.
# Its mount namespace is noted, to show at the end that nothing is left in it.
run_inside() {
  unshare --mount --pid --fork --kill-child --propagation private -- "$here/enter-root.sh" "$root" 9<&- &
  local pid=$! child=""
  echo "$pid $(awk '{print $22}' "/proc/$pid/stat")" >"$work/unshare.pid"
  for _ in $(seq 50); do child=$(pgrep -P "$pid" | sed -n 1p) && [[ -n $child ]] && break; sleep 0.1; done
  [[ -n $child ]] && fresh_mnt_ns=$(readlink "/proc/$child/ns/mnt")
  wait "$pid"
}

# After the run: no process is in the fresh machine's mount namespace, so
# it is gone, with every mount and network namespace that only it held.
namespace_gone() {
  [[ -n ${fresh_mnt_ns:-} ]] || { echo "its mount namespace was not seen"; return 1; }
  local p in_it=0
  for p in /proc/[0-9]*; do [[ $(readlink "$p/ns/mnt" 2>/dev/null) == "$fresh_mnt_ns" ]] && in_it=$((in_it + 1)); done
  echo "$in_it processes left in its mount namespace $fresh_mnt_ns"
  [[ $in_it -eq 0 ]]
}

summary() {
  local rc=$1 proved=1
  echo
  say "what this run proved ($(( $(now) - started )) s in all; the machine may have been busy with other work)"
  say "  root: $made_root"
  [[ -n ${network_cas:-} ]] && say "  this network's CAs (no Debian CA) in its /usr/local/share/ca-certificates: $network_cas"
  say "  a real root: bound onto itself, pivot_root into it in a private mount and PID namespace, fresh /proc /sys /dev /run"
  say "  the commit under test: $(cat "$inside/commit") cloned into /root/rpclab"
  [[ -s $inside/test-flags && -n $(cat "$inside/test-flags") ]] &&
    say "  make test ran with TEST_FLAGS=$(cat "$inside/test-flags") (RPCLAB_FRESH_TEST_FLAGS)"
  [[ -s $inside/ccache-stats ]] &&
    say "  compiled through the ccache folder $RPCLAB_FRESH_CCACHE (RPCLAB_FRESH_CCACHE): $(cat "$inside/ccache-stats")"
  printf 'fresh-machine:   %-60s %5s %7s\n' step exit seconds
  [[ -s $inside/steps.tsv ]] || proved=0
  while IFS=$'\t' read -r name code secs; do
    printf 'fresh-machine:   %-60s %5s %7s\n' "$name" "$code" "$secs"
    [[ $code == 0 ]] || proved=0
  done < <(cat "$inside/steps.tsv" 2>/dev/null)
  local required
  for required in "make run-dependability PRESET=nfs-quick (first; no row skipped)" "make test" \
                  "make run-dependability PRESET=quick" "no network namespace left"; do
    grep -qxF "$required" <(cut -f1 "$inside/steps.tsv" 2>/dev/null) && continue  # no pipe for grep -q to cut short
    printf 'fresh-machine:   %-60s %5s\n' "$required" "never ran"
    proved=0
  done
  [[ $rc -eq 0 ]] || proved=0
  local gone
  gone=$(namespace_gone) || proved=0
  say "  after it ended: $gone"
  if [[ $proved -eq 1 ]]; then
    say "PASS: on a new Debian 12 with only \`$(cat "$inside/install-first")\` added, as root in a 0700 home,"
    say "      \`make test\` and \`make run-dependability PRESET=quick\` pass as README.md gives them,"
    say "      and \`make run-dependability PRESET=nfs-quick\` alone, before them, ran every row it lists"
  else
    say "FAIL: a step above failed (the fresh machine exited $rc)"
  fi
  return $(( 1 - proved ))
}

# All in one function, read whole before it runs: bash reads a script as it
# goes, so an edit to this file during a run would otherwise change the run.
main() {
  case "${1:-}" in
    --no-cache) use_cache=0 ;;
    "") ;;
    *) echo "usage: $0 [--no-cache]" >&2; exit 2 ;;
  esac
  [[ $(id -u) -eq 0 ]] || die "needs root (debootstrap, mount and pivot_root); run: sudo $0"
  "$repo/tools/deps.sh" fresh-machine
  exec 9<"$0"  # one run at a time; the lock is this script itself, so no file is left behind
  flock -n 9 || die "another fresh-machine run is going on (it holds a lock on $0)"
  check_readme_commands
  install_line=$(first_install_line)
  [[ -n $install_line ]] || die "README.md's 'The two commands' shows no apt-get line to run first"

  started=$(now)
  remove_work
  trap 'rc=$?; remove_work; say "removed $work"; exit $rc' EXIT
  trap 'exit 130' INT TERM HUP
  mkdir -p "$work" && touch "$work/$marker"
  make_root
  say "root: $made_root"
  say "README.md says to install first: $install_line"
  prepare_inside "$install_line"
  say "entering the fresh root"
  inside_rc=0
  run_inside || inside_rc=$?
  summary "$inside_rc"
}

main "$@"; exit
