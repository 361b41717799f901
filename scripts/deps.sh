#!/bin/sh
# deps.sh - install the Debian packages exdb needs, only those missing.
# As root it runs apt-get; otherwise it prints the apt-get line and fails.
# Usage: scripts/deps.sh [test]   ("test" adds what `make test` needs too)
set -e
need=""
have_pc() { pkg-config --exists "$1" 2>/dev/null; }
have_cmd() { command -v "$1" >/dev/null 2>&1; }
have_pc libcjson || need="$need libcjson-dev"
have_pc libcgraph && have_pc libgvc || need="$need libgraphviz-dev"
have_pc libzip || need="$need libzip-dev"
have_pc libedit || need="$need libedit-dev"
have_cmd pkg-config || need="$need pkg-config"
have_cmd cc || need="$need gcc"
have_cmd make || need="$need make"
# dot's layout plugins (gvc loads them at run time) come with graphviz.
have_cmd dot || need="$need graphviz"
if [ "$1" = "test" ]; then
    have_pc criterion || need="$need libcriterion-dev"
    have_cmd python3 || need="$need python3"
    have_cmd xmllint || need="$need libxml2-utils"
    have_cmd tmux || need="$need tmux"
    # the HTML viewer's test (tests/viz/html_chromium.sh) drives headless Chromium
    have_cmd chromium || need="$need chromium chromium-driver"
fi
[ -z "$need" ] && exit 0
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
