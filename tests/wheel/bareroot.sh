#!/bin/sh
# bareroot.sh DIR - a minimal Debian root in DIR with python3 and its venv
# module and nothing of exdb's (no Graphviz, libzip, cJSON, libedit,
# xxhash): debootstrap --variant=minbase of this machine's Debian release
# from Debian's mirror (EXDB_DEBIAN_MIRROR to change it). DIR/.exdb-bareroot
# marks a finished root, which is kept for the next run; a failed one is
# removed; debootstrap is given EXDB_BAREROOT_TIMEOUT seconds (480: it took
# 3 minutes here). Exit 0 when DIR is ready, 1 otherwise. debootstrap mounts /proc
# and /sys in the root it builds; whatever is left mounted there is
# unmounted on every exit. A finished root is also kept as a tarball in
# EXDB_BAREROOT_CACHE (/var/cache/exdb; empty: none), which a fresh checkout on
# the same machine (CI's clone) unpacks in seconds instead of debootstrapping.
dir=$1
[ -n "$dir" ] || { echo "usage: bareroot.sh DIR" >&2; exit 2; }
suite=$(. /etc/os-release 2>/dev/null && echo "$VERSION_CODENAME")
suite=${suite:-bookworm}
# a root of this machine's release (the wheel needs its glibc)
[ "$(cat "$dir/.exdb-bareroot" 2>/dev/null)" = "$suite" ] && exit 0
command -v debootstrap >/dev/null 2>&1 || { echo "bareroot: no debootstrap" >&2; exit 1; }
mirror=${EXDB_DEBIAN_MIRROR:-http://deb.debian.org/debian}
mkdir -p "$(dirname "$dir")" || exit 1
tmp=$(cd "$(dirname "$dir")" && pwd)/$(basename "$dir").tmp
log=$(dirname "$tmp")/$(basename "$dir").log
unmount_tmp() {
    grep -o " $tmp/[^ ]*" /proc/mounts 2>/dev/null | sort -r | while read -r m; do
        umount "$m" 2>/dev/null || umount -l "$m"
    done
}
# rm -rf only where nothing is mounted any more
remove_tmp() {
    if grep -q " $tmp/" /proc/mounts 2>/dev/null; then
        echo "bareroot: $tmp still has mounts; not removed" >&2
        return 1
    fi
    rm -rf "$tmp"
}
trap unmount_tmp EXIT
trap 'exit 1' INT TERM HUP
unmount_tmp
remove_tmp || exit 1
cache=${EXDB_BAREROOT_CACHE-/var/cache/exdb}
tarball=${cache:+$cache/bareroot-$suite.tar.gz}
if [ -n "$tarball" ] && [ -f "$tarball" ]; then
    mkdir -p "$tmp" && if tar --numeric-owner -xzpf "$tarball" -C "$tmp" 2>"$log" &&
        [ -x "$tmp/usr/bin/python3" ]; then
        rm -rf "$dir" && mv "$tmp" "$dir" || exit 1
if [ -n "$tarball" ] && mkdir -p "$cache" 2>/dev/null; then
    tar --numeric-owner -czpf "$tarball.tmp" -C "$dir" . 2>/dev/null && mv "$tarball.tmp" "$tarball" ||
        rm -f "$tarball.tmp"
fi
echo "$suite" >"$dir/.exdb-bareroot" &&
            echo "bareroot: $dir unpacked from $tarball" && exit 0
    fi
    remove_tmp || exit 1
fi
echo "bareroot: debootstrap $suite into $dir (a few minutes, once)"
if ! timeout "${EXDB_BAREROOT_TIMEOUT:-480}" debootstrap --variant=minbase \
    --include=python3,python3-venv "$suite" "$tmp" "$mirror" >"$log" 2>&1; then
    echo "bareroot: debootstrap failed or timed out (last lines of $log):" >&2
    tail -5 "$log" >&2
    unmount_tmp
    remove_tmp
    exit 1
fi
unmount_tmp
rm -f "$tmp"/var/cache/apt/archives/*.deb
grep -q " $tmp/" /proc/mounts && { echo "bareroot: $tmp still has mounts" >&2; exit 1; }
rm -rf "$dir" && mv "$tmp" "$dir" || exit 1
if [ -n "$tarball" ] && mkdir -p "$cache" 2>/dev/null; then
    tar --numeric-owner -czpf "$tarball.tmp" -C "$dir" . 2>/dev/null && mv "$tarball.tmp" "$tarball" ||
        rm -f "$tarball.tmp"
fi
echo "$suite" >"$dir/.exdb-bareroot"
