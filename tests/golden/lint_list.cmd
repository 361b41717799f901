# args: -q
# lint --list: the check catalog (core/fx/lintchecks.c), no program needed
lint --list
