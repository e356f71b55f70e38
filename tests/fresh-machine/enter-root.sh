#!/usr/bin/env bash
# Makes ROOT a real root and runs steps.sh in it. run.sh starts this as
# PID 1 of a new PID namespace, in a private mount namespace (unshare
# --mount --pid --propagation private), so every mount below disappears
# with the namespace however the run ends, and the host sees none of them.
#
# A plain chroot is not enough: `ip netns add` bind-mounts under /run/netns
# and `ip netns exec` / `nsenter -m` remount /sys, which need a root that
# is a mount point of its own, with /proc, /sys and /run mounted fresh.
#   enter-root.sh ROOT
set -euo pipefail
root=$1

# /dev: a fresh tmpfs holding only the usual nodes, each bound from the
# host's. A program that replaces one of them (a rename onto /dev/stdout)
# fails with EBUSY instead of changing the host's /dev.
make_dev() {
  local dev=$root/dev
  mount -t tmpfs -o nosuid,noexec,mode=0755 rpclab-dev "$dev"
  for node in null zero full random urandom tty net/tun cpu_dma_latency; do
    [[ -c /dev/$node ]] || continue
    mkdir -p "$(dirname "$dev/$node")" && touch "$dev/$node" && mount --bind "/dev/$node" "$dev/$node"
  done
  mkdir "$dev/pts" "$dev/shm"
  mount -t devpts -o newinstance,ptmxmode=0666,mode=0620,gid=5 devpts "$dev/pts"
  mount -t tmpfs -o nosuid,nodev,mode=1777 rpclab-shm "$dev/shm"  # user-mode-linux maps its memory here
  ln -s pts/ptmx "$dev/ptmx"
  ln -s /proc/self/fd "$dev/fd"
  ln -s /proc/self/fd/0 "$dev/stdin"
  ln -s /proc/self/fd/1 "$dev/stdout"
  ln -s /proc/self/fd/2 "$dev/stderr"
}

mount --bind "$root" "$root"  # pivot_root needs the new root to be a mount point
mount -t proc -o nosuid,nodev,noexec proc "$root/proc"  # this PID namespace's processes only
mount -t sysfs -o nosuid,nodev,noexec sysfs "$root/sys"
mount -t tmpfs -o nosuid,nodev,mode=0755 rpclab-run "$root/run"  # /run/netns lives here
make_dev
# run.sh's RPCLAB_FRESH_CCACHE: the compile cache of the build before (see there).
if [[ -n ${RPCLAB_FRESH_CCACHE:-} ]]; then
  mkdir -p "$root/var/cache/rpclab-ccache"
  mount --bind "$RPCLAB_FRESH_CCACHE" "$root/var/cache/rpclab-ccache"
fi
# Nothing here needs /sys/fs/cgroup (no systemd, no cgroup limits), so it stays empty.

cd "$root"
mkdir -p .old-root
pivot_root . .old-root
cd /
umount -l /.old-root  # from here on only the fresh root's files are reachable
rmdir /.old-root
exec /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
  TERM="${TERM:-dumb}" /bin/bash /opt/fresh-machine/steps.sh
