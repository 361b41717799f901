#!/bin/sh
# run_faults.extra.sh EXDB - out-of-memory fault injection (issue 13,
# "SQLite's habits"): tests/faults/fault_walk.c fails the Nth allocation of
# core/ and viz/ (core/base/fault.h, in the sanitizer build) while a session
# loads a program, unflattens it, lints, runs dce and undo, saves and
# renders every view, for every N; each failure must give an "out of
# memory" message, leave nothing half done, write the same files as
# without failures, and leak nothing (LeakSanitizer).
#
#   - every arena block and malloc, every N: the bundled example, a .pt2
#     fixture and a dce fixture (a program with dead code); programs
#     unflatten refuses, dce across module graphs, getitems save keeps;
#   - every arena call too (EXDB_FAULT_ARENA_CALLS), every N: the dce
#     fixture;
#   - allocations failing from the Nth on (--persistent), every 7th N: the
#     example;
#   - stepping both ways through the journal (goto, reverse-stepi, stepi),
#     backtrace, info modules, print graph, lint and a restart: the example
#     and the .pt2 fixture, every N, and the .pt2 fixture's every arena call;
#   - print code and readable (flat, unlifted module, module graphs), info
#     signature and module-call-graph, find, explain: HOP programs and a
#     .pt2; diff of two programs and of two modules, render diff; print
#     tabular, render run, the HTML module view, save as .pt2, whatis: every N;
#   - a real program, every FAULTS_REAL_STRIDE-th N (default 7): resnet18
#     from ${REAL_PT2:-../shared/real_pt2} when that folder exists;
#   - torch-made programs of the conformance corpus with the features the
#     fixtures lack (every arena call, the commands of the walks above), and
#     small made ones (Argument kinds, keyword inputs, module-tree shapes);
#   - DOT of nodes copied for their far uses and of a view dotwrite.c
#     leaves to cgraph (dot: the example, a node name holding U+000C);
#   - programs opened shape first, and from the reopen cache (cache: the
#     entry read, cache-write: the entry written), every arena call;
#   - the sites only those lack (reach*, journal-verify: docs/faults.md).
# Each walk skips an N whose allocation has a call stack an earlier step of
# the same walk made to fail (fault_walk.c; --all-stacks in FAULT_WALK_ARGS
# walks every N), and the walks run FAULTS_JOBS (2) at a time.
# Builds build/san/fault_walk with make (EXDB is only used for its folder's
# name; FAULT_WALK=build/cov/fault_walk walks with make coverage's build,
# which names sites by address and checks no leaks). Prints each walk's
# lines, the allocation sites made to fail (per walk, and the distinct
# file:line sites of all walks, as "N of M": M is
# scripts/alloc_sites.sh's count of the allocation calls in core/ and viz/),
# and "faults: N passed, M failed" (one test per file walked). With
# FAULTS_SITES=FILE, the sites made to fail are written to FILE (one
# file:line a line); docs/faults.md lists those the walk cannot reach.
exdb=${1:?usage: run_faults.extra.sh EXDB}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$root/tests/lsan.supp:print_suppressions=0}
walk=${FAULT_WALK:-build/san/fault_walk}
pass=0 fail=0
sites=$(mktemp)
if ! make --no-print-directory -s "$walk" >/tmp/exdb-faults-build.$$ 2>&1; then
    tail -20 /tmp/exdb-faults-build.$$
    rm -f /tmp/exdb-faults-build.$$
    echo "faults: 0 passed, 1 failed (cannot build $walk)"
    exit 1
fi
rm -f /tmp/exdb-faults-build.$$

# run LABEL ARGS...: one fault_walk, in the background (FAULTS_JOBS, 2, at
# once: each walk is one process at a time); report prints them in order.
jobs=${FAULTS_JOBS:-2}
outs=$(mktemp -d)
trap 'rm -rf "$sites" "$outs"' EXIT
nrun=0 pids=""
run() {
    nrun=$((nrun + 1))
    o=$outs/$nrun
    echo "$1" >"$o.label"
    shift
    ("$walk" --sites ${FAULT_WALK_ARGS:-} "$@" >"$o.out" 2>&1; echo $? >"$o.rc") &
    pids="$pids $!"
    set -- $pids
    if [ $# -ge "$jobs" ]; then
        wait "$1"
        shift
        pids="$*"
    fi
}

# report: each walk's lines, labelled, and its per-file lines counted as tests.
report() {
    i=0
    while [ $i -lt $nrun ]; do
        i=$((i + 1))
        o=$outs/$i
        label=$(cat "$o.label")
        rc=$(cat "$o.rc" 2>/dev/null || echo 2)
        grep '^site ' "$o.out" | sed 's/: [0-9]*$//' >>"$sites"
        grep -v '^faults: \|^site ' "$o.out" | sed "s|^|$label: |"
        line=$(grep -E '^faults: [0-9]+ passed, [0-9]+ failed' "$o.out" | tail -1)
        if [ -z "$line" ]; then
            echo "$label: fault_walk did not finish (exit $rc)"
            fail=$((fail + 1))
        else
            p=$(echo "$line" | sed -E 's/faults: ([0-9]+) passed.*/\1/')
            f=$(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')
            pass=$((pass + p))
            fail=$((fail + f))
            [ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && fail=$((fail + 1))
        fi
    done
}

# the longest walk first (two at a time, in the order given)
real=${REAL_PT2:-$(cd "$root/.." && pwd)/shared/real_pt2}
prog=$real/TheCBaH__pytorch.models.pt2__resnet18@209890a1__model.json
if [ -f "$prog" ]; then
    run real --stride "${FAULTS_REAL_STRIDE:-7}" "$prog"
else
    echo "real: $prog not found: the walk over a real program is skipped"
fi
run blocks tests/fixtures/example.json tests/fixtures/unflatten/constant_aliasing.pt2 \
    tests/fixtures/dce/dead_pure.json
# programs unflatten refuses, dce across module graphs, getitems save keeps
run blocks-more tests/fixtures/unflatten/error_no_stack.json \
    tests/fixtures/unflatten/preserve_const.json tests/fixtures/unflatten/closure.json \
    tests/fixtures/dce/getitems.json
run arena-calls --arena-calls tests/fixtures/dce/dead_pure.json
run persistent --persistent --stride 7 tests/fixtures/example.json
# stepping both ways (the journal), listings, a restart
set -- -c "load '{F}'" -c "unflatten run" -c "goto 50" -c "reverse-stepi 5" -c "stepi 3" \
    -c backtrace -c "info modules" -c "print graph" -c "info program" -c lint \
    -c "unflatten restart" -c "unflatten run"
run stepping "$@" tests/fixtures/example.json tests/fixtures/unflatten/constant_aliasing.pt2
run stepping-arena-calls --arena-calls "$@" tests/fixtures/unflatten/constant_aliasing.pt2
# printing code (flat, readable, the unlifted module, module graphs), the
# signature and call graph, find, explain, lint: HOP programs (cond,
# set_grad, a torchbind object) and a .pt2 archive
set -- -c "load '{F}'" -c "print code" -c "print readable" -c "print code module" \
    -c "print readable module" -c "info signature" -c "info module-call-graph" -c "info facts" \
    -c "find --op call_function" -c "unflatten run" -c "print code module ''" \
    -c "print readable module ''" -c explain -c "lint all" -c "list source"
run code "$@" tests/fixtures/unflatten/cond.json tests/fixtures/unflatten/set_grad.json \
    tests/fixtures/unflatten/constant_obj.json tests/fixtures/unflatten/constant_aliasing.pt2
# diff: programs, modules, the diff view as DOT and SVG
run diff -c "load '{F}'" -c "diff tests/fixtures/diff/v2.json" -c "unflatten run" \
    -c "diff module blk same" -c "render diff tests/fixtures/diff/v2.json -o {D}/diff.dot" \
    -c "render diff tests/fixtures/diff/v2.json -o {D}/diff.svg" tests/fixtures/diff/v1.json
# print tabular, render run and the HTML module view, flat with --hide, every
# other view's HTML page (flat, tree, frame: graph_data.c), save as .pt2,
# info node-map, whatis
run views -c "load '{F}'" -c "print tabular" -c "render run -o {D}/run.html" \
    -c "render flat --hide state,getitems,dead -o {D}/h.dot" -c "render modules -o {D}/m.html" \
    -c "render flat -o {D}/f.html" -c "render tree -o {D}/t.html" -c "render frame -o {D}/fr.html" \
    -c "save {D}/s.pt2" -c "unflatten run" -c "info node-map" -c "whatis x" -c "whatis foo" \
    tests/fixtures/unflatten/constant_aliasing.pt2 tests/fixtures/unflatten/cond.json
# the same with every arena call counted (an arena call fails only when it
# needs a new block otherwise): 43 more allocation sites
run code-arena-calls --arena-calls -c "load '{F}'" -c "print code" -c "print readable" \
    -c "print code module" -c "print readable module" -c "info signature" \
    -c "info module-call-graph" -c "info facts" -c "find --op call_function" -c "unflatten run" \
    -c "print code module ''" -c "print readable module ''" -c explain -c "lint all" \
    -c "list source" tests/fixtures/unflatten/cond.json tests/fixtures/unflatten/constant_obj.json \
    tests/fixtures/unflatten/constant_aliasing.pt2
run diff-arena-calls --arena-calls -c "load '{F}'" -c "diff tests/fixtures/diff/v2.json" \
    -c "diff module blk same" tests/fixtures/diff/v1.json
run views-arena-calls --arena-calls -c "load '{F}'" -c "print tabular" \
    -c "render run -o {D}/run.html" -c "render flat --hide state,getitems,dead -o {D}/h.dot" \
    -c "render modules -o {D}/m.html" -c "save {D}/s.pt2" -c "unflatten run" -c "info node-map" \
    -c "whatis x" -c "whatis foo" tests/fixtures/unflatten/constant_aliasing.pt2 \
    tests/fixtures/unflatten/cond.json
# program features the fixtures lack, in torch-made programs of the
# conformance corpus: preserved signatures with constants and dispatchers of
# repeated calls, constant inputs, sympy texts, HOP outputs, stacks
# _fix_nn_module_stacks repairs, long names, TreeSpec keys, custom metadata,
# modules added by path (scripts/alloc_sites.sh's sites no other walk
# reaches; tests/faults/fault_walk.c --census lists a file's)
c=tests/conformance/corpus/scenarios
run corpus --arena-calls -c "load '{F}'" -c "unflatten run" -c explain -c "lint all" \
    -c "print code" -c "print readable" -c "print code module" -c "info signature" \
    -c "info module-call-graph" -c "find --op call_function" -c "print code module ''" \
    -c "list source" -c "diff {F}" -c info -c "render frame -o {D}/f.dot" \
    -c "render modules -o {D}/m.dot" -c "dce all" -c "save {D}/s.json" \
    $c/empty_branch__nonstrict__preserve/program.pt2 \
    $c/cond_with_module_stack_dynamic__nonstrict/program.pt2 \
    $c/random_dag_mutating_buf_preserving_4__nonstrict__preserve__functional/program.pt2 \
    $c/long_module_name__nonstrict/program.pt2 $c/err_not_descendant__nonstrict/program.pt2 \
    $c/skipped_call_module__nonstrict/program.pt2 $c/functorch_jvp__nonstrict/program.pt2 \
    $c/fx_trace__strict/program.pt2 $c/annotated__strict/program.pt2 \
    $c/stack_removed_mul__nonstrict/program.pt2 $c/stack_drop1_mul__nonstrict/program.pt2 \
    $c/cf_cond_in_map__nonstrict/program.pt2
# small programs made for the features no torch-made fixture has: the
# Argument kinds (an indexed device, complex...), keyword inputs without
# forward_arg_names, a Linear called 12 times sharing its weight (lists
# outgrowing their inline room), module_call_graph entries no node runs (80:
# r->modules outgrows its first 64, render tree draws runs of them as one box),
# nested shared modules
run features --arena-calls -c "load '{F}'" -c "print code" -c "print readable" \
    -c "print code module" -c "info node kinds_default_unused" -c "unflatten run" -c explain \
    -c "info modules" -c "render tree -o {D}/t.dot" tests/fixtures/arg_kinds.json \
    tests/fixtures/kwargs_no_arg_names.json tests/fixtures/modgraph/calls_param_12.json \
    tests/fixtures/modgraph/mcg_3.json tests/fixtures/modgraph/mcg_runs.json \
    tests/fixtures/modgraph/alias_3.json
# sites only a program feature or command above lacks reaches (docs/faults.md):
# info lines/calls, dce --dry-run, module stacks deeper than their first
# capacity (gen_modgraph.py deep 32), a call with 65 arguments (args 65), an
# operator.* call without a Python operator (its code keeps no node names),
# constants of preserved signatures, a frame's tuple value, metadata beyond
# the known keys, the HTML pages' arena copies
run reach --arena-calls -c "load '{F}'" -c "info lines" -c "info calls blocks" \
    -c "dce --dry-run" -c "print code" -c "unflatten run" -c "lint all" -c "info modules" \
    -c "render tree -o {D}/t.dot" -c "render flat -o {D}/f.html" -c "render frame -o {D}/fr.html" \
    -c "render tree -o {D}/t.html" -c "dce all" tests/fixtures/example.json \
    tests/fixtures/source/tinynet.pt2 tests/fixtures/modgraph/deep_32.json \
    tests/fixtures/modgraph/args_65.json tests/fixtures/modgraph/wide_9.json \
    tests/fixtures/operator_index.json \
    tests/fixtures/unflatten/ivals_child2parent.json tests/fixtures/describe_odd.json \
    $c/preserve_signature__nonstrict__preserve/program.pt2
# diffs of schema versions and of a repeated call's nodes, a HOP subgraph's
# module graph, dce refused in module graphs, more events than the journal's
# first capacity (calls 64)
run reach-diff --arena-calls -c "load '{F}'" -c "diff tests/fixtures/unflatten/dedup_sym_size.json" \
    -c "diff tests/fixtures/modgraph/calls_param_12.json" -c "unflatten run" \
    -c "dce module m1.true_graph_0" -c "dce all" tests/fixtures/operator_index.json \
    tests/fixtures/modgraph/calls_64.json tests/fixtures/unflatten/cond.json tests/fixtures/diff/v1.json
# constant user inputs (placeholders named arg{i}), a node whose outputs hold
# None and a tensor list (the loader's getitems), TreeSpec dict keys that are
# an int and an enum
run reach-load --arena-calls -c "load '{F}'" -c "print code" -c "print code module" \
    -c "info signature" -c "info module-call-graph" -c "unflatten run" -c "print code module ''" \
    tests/fixtures/const_inputs_multi_out.json
# an archive's model named at load (the snapshot keeps the name)
run reach-model --arena-calls -c "load '{F}' model" -c "unflatten run" -c "save {D}/s.pt2" \
    tests/fixtures/unflatten/constant_aliasing.pt2
# a tensor on a device outside the usual names (its type copied into the
# program's arena: load_value.c device_type)
run device --arena-calls -c "load '{F}'" -c "print tabular" tests/fixtures/device_other.json
# metadata read at first use (programs of EXDB_LAZY_META_MIN nodes; here
# any), two nodes' torch_fn refused when read: each keeps its own message
run lazy-meta --arena-calls --lazy-meta -c "load '{F}'" -c "info node addmm" \
    -c "info node add" -c "info node addmm" -c "print code" tests/fixtures/lazy_meta_bad.json
# an nn_module_stack with an escape, read at load into the element's arena
# (json.c: a stack without one is left raw for the loader to recognise)
sed 's/"nn_module_stack": "L__self__/"nn_module_stack": "L\\u005f_self__/' \
    tests/fixtures/example.json >"$outs/stack_escaped.json"
run stack-escaped --arena-calls --lazy-meta -c "load '{F}'" -c "info modules" \
    "$outs/stack_escaped.json"
# DOT of nodes copied for their far uses (every node with two uses: the
# copies share one tooltip, viz/dotwrite.c), and of a view dotwrite.c leaves
# to cgraph and agwrite (a node name holding U+000C: viz/cgdisc.c)
python3 - tests/malformed/_valid.json "$outs/ctrl.json" <<'PY'
import json, sys
s = open(sys.argv[1]).read()
open(sys.argv[2], "w").write(s.replace('"linear"', json.dumps("lin\u000cear")))
PY
run dot -c "load '{F}'" -c "set render-dup-fanout 1" -c "set render-dup-span 1" \
    -c "render flat -o {D}/f.dot" -c "render flat --by-module -o {D}/b.dot" \
    tests/fixtures/example.json "$outs/ctrl.json"
# programs opened shape first (from EXDB_SHAPE_FIRST_MIN nodes; here any):
# the shape read, the build at the first command that needs the IR (kept
# for the next command when memory runs out), a file the build refuses
run shape-first --arena-calls --shape-first -c "load '{F}'" -c "info program" -c "print code" \
    -c "info program" tests/fixtures/example.json tests/malformed/dup_node_output.json \
    tests/fixtures/kwargs.pt2
# programs opened from the reopen cache (core/export/cache.h): the entry
# read and its image put back, the build made from the IR entry (cache_ir.h;
# checked, put back, the file hashed); then the entries written (each
# session starting with the cache empty: the shape entry at the open, the
# IR entry after the build); an image whose
# slim text keeps the specs with a value (constant user inputs)
run cache --arena-calls --shape-first --cache -c "load '{F}' model" -c "info program" \
    -c "print code" -c "info program" tests/fixtures/kwargs.pt2 \
    tests/fixtures/const_inputs_multi_out.json
run cache-write --arena-calls --shape-first --cache-write -c "load '{F}' model" \
    -c "info program" -c "print code" tests/fixtures/kwargs.pt2 \
    tests/fixtures/const_inputs_multi_out.json
# the journal's own check (EXDB_JOURNAL_VERIFY, a debugging mode) failing
EXDB_JOURNAL_VERIFY=1
export EXDB_JOURNAL_VERIFY
run journal-verify -c "load '{F}'" -c "unflatten run" -c "goto 5" -c "reverse-stepi 3" -c "stepi 2" \
    tests/fixtures/unflatten/relu_twice.json
unset EXDB_JOURNAL_VERIFY
wait
report
# file:line of core/ and viz/ (a build without ASan names a site by its
# offset in the executable: addr2line names it)
sort -u "$sites" | sed 's/^site //; s/ (.*//' | sort -u >"$sites.u"
grep '^@' "$sites.u" | sed 's/^@//' | addr2line -e "$walk" 2>/dev/null >"$sites.a"
grep -v '^@' "$sites.u" >>"$sites.a"
sed 's/ (discriminator.*//; s|^.*/core/|core/|; s|^.*/viz/|viz/|' "$sites.a" |
    grep -E '^(core|viz)/' | sort -u >"$sites.u"
[ -n "${FAULTS_SITES:-}" ] && cp "$sites.u" "$FAULTS_SITES"
echo "faults: $(grep -c . "$sites.u") of $(scripts/alloc_sites.sh -c) allocation sites (file:line) of core/ and viz/ made to fail in all"
rm -f "$sites.u" "$sites.a"
echo "faults: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
