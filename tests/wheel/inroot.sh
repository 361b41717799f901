#!/bin/sh
# inroot.sh ROOT CMD... - run CMD in the Debian root ROOT (chroot) with a
# clean environment (PATH, HOME=/tmp/exdb-wheel-test, LANG). /proc is mounted
# in ROOT inside a private mount namespace of this command only (unshare): a
# real system has /proc, and the dynamic loader needs it for the $ORIGIN of
# the wheel's binary (its RPATH to exdb.libs). The mount is gone when CMD
# ends, however it ends; the host's mount table never sees it.
bare=$1
shift
exec unshare --mount --propagation private --fork sh -c '
    mount -t proc proc "$0/proc" || exit 125
    exec chroot "$0" env -i PATH=/usr/bin:/bin HOME=/tmp/exdb-wheel-test LANG=C.UTF-8 "$@"' \
    "$bare" "$@"
