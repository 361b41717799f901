#!/bin/sh
# deps.sh - install the Debian packages exdb needs, only those missing.
# As root it runs apt-get; otherwise it prints the apt-get line and fails.
# Usage: scripts/deps.sh [test|conformance|peer]
#   test         adds what `make test` needs too
#   conformance  adds python3-venv, then makes build/venv with torch 2.13.0 (the
#                CPU wheel on our machines' disk, never a download) and the pinned
#                pure-Python packages of tests/conformance/requirements.txt
#                (scripts/conformance_venv.sh); `make conformance` and
#                `make bench-peer` use it
#   peer         the same as conformance
set -e
need=""
have_pc() { pkg-config --exists "$1" 2>/dev/null; }
have_cmd() { command -v "$1" >/dev/null 2>&1; }
# A clang that links libFuzzer (-fsanitize=fuzzer): the fuzz harnesses that
# `make test` runs for a few seconds each (tests/fuzz). Debian splits it into
# clang (the release's default compiler: clang-14 on Debian 12, clang-19 on
# 13) and libclang-rt-dev (its fuzzer, ASan and UBSan runtimes); both names
# are metapackages on both releases.
have_libfuzzer() {
    t=$(mktemp -d) || return 1
    printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return d && !n; }\n' >"$t/f.c"
    ok=1
    for c in clang clang-19 clang-14; do
        if have_cmd "$c" && "$c" -fsanitize=fuzzer,address "$t/f.c" -o "$t/f" >/dev/null 2>&1; then
            ok=0
            break
        fi
    done
    rm -rf "$t"
    return $ok
}
have_pc libcjson || need="$need libcjson-dev"
have_pc libcgraph && have_pc libgvc || need="$need libgraphviz-dev"
have_pc libzip || need="$need libzip-dev"
have_pc libedit || need="$need libedit-dev"
have_pc libxxhash || need="$need libxxhash-dev"
have_pc zlib || need="$need zlib1g-dev"
have_cmd pkg-config || need="$need pkg-config"
have_cmd cc || need="$need gcc"
have_cmd make || need="$need make"
# dot's layout plugins (gvc loads them at run time) come with graphviz.
have_cmd dot || need="$need graphviz"
# render names DejaVu Sans for every label (viz/emit.c): Graphviz sizes the
# boxes with it, and viewers on Linux draw it.
fc-list "DejaVu Sans" family 2>/dev/null | grep -q . || need="$need fonts-dejavu-core"
if [ "$1" = "test" ]; then
    have_pc criterion || need="$need libcriterion-dev"
    have_cmd python3 || need="$need python3"
    have_cmd xmllint || need="$need libxml2-utils"
    have_cmd tmux || need="$need tmux"
    have_libfuzzer || need="$need clang libclang-rt-dev"
    # the HTML viewer's test (tests/viz/html_chromium.sh) drives headless Chromium
    have_cmd chromium || need="$need chromium"
    # the wheel suite installs the wheel in a bare Debian root it makes once
    # (tests/wheel/bareroot.sh; without it the suite is skipped)
    have_cmd debootstrap || need="$need debootstrap"
fi
if [ "$1" = "conformance" ] || [ "$1" = "peer" ]; then
    # the virtual environment's own pip and venv
    python3 -c 'import ensurepip, venv' >/dev/null 2>&1 || need="$need python3-venv"
fi
if [ -n "$need" ]; then
    if [ "$(id -u)" = 0 ]; then
        echo "deps: installing$need"
        export DEBIAN_FRONTEND=noninteractive
        # Refresh the package lists only when they are missing or older than a day.
        if [ -z "$(find /var/lib/apt/lists -maxdepth 1 -name '*Packages*' -mtime -1 2>/dev/null | head -1)" ]; then
            apt-get update -qq
        fi
        # shellcheck disable=SC2086
        apt-get install -y -qq --no-install-recommends $need >/dev/null
    else
        echo "deps: missing packages; run as root:" >&2
        echo "  apt-get install -y$need" >&2
        exit 1
    fi
fi
[ "$1" = "conformance" ] || [ "$1" = "peer" ] && exec "$(dirname "$0")/conformance_venv.sh"
exit 0
