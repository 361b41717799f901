#!/bin/sh
# bareroot.sh DIR - a minimal Debian root in DIR with python3 and its venv
# module and nothing of exdb's (no Graphviz, libzip, cJSON, libedit,
# xxhash): debootstrap --variant=minbase of this machine's Debian release
# from Debian's mirror (EXDB_DEBIAN_MIRROR to change it). DIR/.exdb-bareroot
# marks a finished root, which is kept for the next run; a failed one is
# removed. Exit 0 when DIR is ready, 1 otherwise. debootstrap mounts /proc
# and /sys in the root it builds; whatever is left mounted there is
# unmounted on every exit.
dir=$1
[ -n "$dir" ] || { echo "usage: bareroot.sh DIR" >&2; exit 2; }
[ -f "$dir/.exdb-bareroot" ] && exit 0
command -v debootstrap >/dev/null 2>&1 || { echo "bareroot: no debootstrap" >&2; exit 1; }
mirror=${EXDB_DEBIAN_MIRROR:-http://deb.debian.org/debian}
suite=$(. /etc/os-release 2>/dev/null && echo "$VERSION_CODENAME")
suite=${suite:-bookworm}
mkdir -p "$(dirname "$dir")" || exit 1
tmp=$(cd "$(dirname "$dir")" && pwd)/$(basename "$dir").tmp
unmount_tmp() {
    grep -o " $tmp/[^ ]*" /proc/mounts 2>/dev/null | sort -r | while read -r m; do
        umount "$m" 2>/dev/null || umount -l "$m"
    done
}
trap unmount_tmp EXIT
trap 'exit 1' INT TERM HUP
unmount_tmp
rm -rf "$tmp"
echo "bareroot: debootstrap $suite into $dir (a few minutes, once)"
if ! debootstrap --variant=minbase --include=python3,python3-venv "$suite" "$tmp" "$mirror" \
    >"$tmp.log" 2>&1; then
    echo "bareroot: debootstrap failed (last lines of $tmp.log):" >&2
    tail -5 "$tmp.log" >&2
    unmount_tmp
    rm -rf "$tmp"
    exit 1
fi
unmount_tmp
rm -f "$tmp"/var/cache/apt/archives/*.deb
rm -rf "$dir" && mv "$tmp" "$dir" && touch "$dir/.exdb-bareroot"
