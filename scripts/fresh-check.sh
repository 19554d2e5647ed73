#!/usr/bin/env bash
# Runs the README's commands on a fresh Debian 12, so that a missing install
# step cannot hide behind packages someone installed by hand on this machine.
#
# It builds a minimal Debian 12 root (debootstrap --variant=minbase bookworm;
# cached as a tarball between runs), copies `git archive HEAD` of this
# checkout into it, and runs the README's commands there as root with a clean
# environment (env -i), each timed. Nothing of this machine's installs is
# visible inside; the root is thrown away afterwards.
#
# Usage: scripts/fresh-check.sh [demo|test|both]   (default: demo)
#   demo  the first README command (scripts/demo.sh), then checks that
#         demo/report.html was written
#   test  the second README command (scripts/test.sh)
# Needs root (chroot, mounts) and network access to the Debian archive; it
# installs debootstrap when missing. Exits 77 when it cannot run here (not
# root, no debootstrap and no apt), so callers can tell "could not check"
# from "failed".
# Environment: FOLD_FRESH_CACHE (default /var/cache/fold-fresh) holds the
# cached root; FOLD_FRESH_MIRROR (default http://deb.debian.org/debian).
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
what=${1:-demo}
case "$what" in demo | test | both) ;; *)
  echo "fresh-check: expected demo, test or both, got '$what'" >&2
  exit 2
  ;;
esac
cache=${FOLD_FRESH_CACHE:-/var/cache/fold-fresh}
mirror=${FOLD_FRESH_MIRROR:-http://deb.debian.org/debian}
security=${mirror%/debian}/debian-security

if [ "$(id -u)" -ne 0 ]; then
  echo "fresh-check: SKIP: needs root (chroot and mounts)"
  exit 77
fi
if ! command -v debootstrap >/dev/null; then
  if ! command -v apt-get >/dev/null; then
    echo "fresh-check: SKIP: no debootstrap and no apt-get to install it"
    exit 77
  fi
  echo "fresh-check: installing debootstrap"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null ||
    { DEBIAN_FRONTEND=noninteractive apt-get update -qq && apt-get install -y -qq debootstrap >/dev/null; }
fi
git -C "$src" rev-parse HEAD >/dev/null 2>&1 || {
  echo "fresh-check: $src is not a git checkout (it copies git archive HEAD)" >&2
  exit 2
}

tarball=$cache/bookworm-minbase.tar.gz
if [ ! -s "$tarball" ]; then
  echo "fresh-check: building a minimal Debian 12 root (debootstrap, cached in $cache)"
  mkdir -p "$cache"
  stage=$(mktemp -d "$cache/stage.XXXXXX")
  start=$SECONDS
  if ! debootstrap --variant=minbase bookworm "$stage" "$mirror" >"$cache/debootstrap.log" 2>&1; then
    tail -20 "$cache/debootstrap.log"
    rm -rf "$stage"
    echo "fresh-check: debootstrap failed (log: $cache/debootstrap.log)" >&2
    exit 1
  fi
  # What a fresh Debian 12 machine has: main with updates and security.
  cat >"$stage/etc/apt/sources.list" <<EOF
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb $security bookworm-security main
EOF
  rm -rf "$stage"/var/cache/apt/archives/*.deb
  tar -C "$stage" -czf "$tarball.tmp" . && mv "$tarball.tmp" "$tarball"
  rm -rf "$stage"
  echo "fresh-check: root built in $((SECONDS - start)) s"
fi

root=$(mktemp -d /var/tmp/fold-fresh.XXXXXX)
chmod 755 "$root" # as / is: apt drops to user _apt to download
mounted=()
cleanup() {
  local i
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -l "${mounted[$i]}" 2>/dev/null || true; done
  rm -rf --one-file-system "$root"
}
trap cleanup EXIT
tar -C "$root" -xzf "$tarball"
for m in proc sys dev dev/pts; do
  case $m in
  proc) mount -t proc proc "$root/proc" ;;
  sys) mount -t sysfs sys "$root/sys" ;;
  dev) mount --rbind /dev "$root/dev" && mount --make-rslave "$root/dev" ;;
  dev/pts) continue ;; # came with the recursive bind of /dev
  esac
  mounted+=("$root/$m")
done
mkdir -p "$root/tmp" && chmod 1777 "$root/tmp"
cp -L /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
mkdir -p "$root/src/fold"
git -C "$src" archive HEAD | tar -x -C "$root/src/fold"

# Runs one README command inside the root as a newcomer would: as root, in
# the checkout, with nothing of this shell's environment.
run_in_root() { # name, command
  local name=$1 cmd=$2 start=$SECONDS rc=0
  echo "fresh-check: [$name] $cmd (in a fresh Debian 12 root)"
  chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    /bin/bash -c "cd /src/fold && $cmd" || rc=$?
  echo "fresh-check: [$name] exit $rc after $((SECONDS - start)) s"
  return "$rc"
}

status=0
if [ "$what" = demo ] || [ "$what" = both ]; then
  if run_in_root demo scripts/demo.sh; then
    if [ -s "$root/src/fold/demo/report.html" ]; then
      echo "fresh-check: [demo] demo/report.html written ($(wc -c <"$root/src/fold/demo/report.html") bytes)"
    else
      echo "fresh-check: [demo] FAILED: demo/report.html was not written"
      status=1
    fi
  else
    status=1
  fi
fi
if [ "$what" = test ] || [ "$what" = both ]; then
  run_in_root test scripts/test.sh || status=1
fi
exit "$status"
