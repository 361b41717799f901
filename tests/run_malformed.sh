#!/bin/sh
# run_malformed.sh EXDB_BINARY - the malformed-input corpus (tests/malformed).
#
# Every tests/malformed/NAME.expected is one case: the input is NAME.json (or
# another NAME.* file) next to it, or a file this script generates into a
# temporary directory (zip archives, a directory, 10,000-deep nesting: see
# generate() below and tests/malformed/README.md). Each case runs as
#     cd DIR && EXDB NAME.EXT -batch
# with the bare file name, so messages do not depend on where the tree is.
# A case passes when the exit status is 1 and stderr equals NAME.expected
# byte for byte (so any sanitizer or leak report fails it). _valid.json, the
# program every mutation starts from, must load cleanly (status 0, no stderr).
# Cases named mem_* must also keep the peak RSS within MEM_FACTOR bytes per
# byte of input above what _valid.json takes (issue 13: 64 bytes per byte
# for a long int list, 891 MB for 11.7 MB of empty nodes).
#
# Every case runs with EXDB_SHAPE_FIRST_MIN=0 (docs/json-reader.md, "Shape
# first"): a batch session of no command opens the file whole, one whose
# first command reads only the shape (lazy_*: `set`) opens it shape first.
# A case of at most 1 MB (all but the mem_* and limit_* giants) runs once
# more, as "NAME (shape first)": `load NAME.EXT` at the prompt (shape
# first), `info program`, then `print code`, the first command that needs
# the IR: the load or `print code` must refuse it with NAME.expected's
# line (issue 27). These run as one session per folder (--json answers,
# read by Python), not a process each: about 1 s for all.
#
# Prints one line per failure and finally exactly
#     malformed: N passed, M failed
# and exits 1 if anything failed. EXDB_TEST_NAME=GLOB runs only the cases
# whose name matches (make test T=malformed/GLOB).
set -u

if [ $# -ne 1 ]; then
    echo "usage: $0 EXDB_BINARY" >&2
    exit 2
fi
case $1 in
/*) exdb=$1 ;;
*) exdb=$(pwd)/$1 ;;
esac
if [ ! -x "$exdb" ]; then
    echo "malformed: $1 is not an executable" >&2
    exit 2
fi
here=$(cd "$(dirname "$0")/malformed" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/exdb-malformed-XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
gen=$tmp/gen
out=$tmp/out
mkdir "$gen" "$out"

# Inputs that are binary, huge or not files are made here rather than
# committed. Zips are built with Python's zipfile, stored and dated
# 1980-01-01 so the bytes are the same on every run.
generate() {
    python3 - "$here" "$gen" <<'PY'
import json, os, struct, sys, zipfile

src, dst = sys.argv[1], sys.argv[2]
valid = open(os.path.join(src, "_valid.json"), "rb").read()


def zipit(name, members):
    with zipfile.ZipFile(os.path.join(dst, name), "w", zipfile.ZIP_STORED) as z:
        for path, data in members:
            z.writestr(zipfile.ZipInfo(path, (1980, 1, 1, 0, 0, 0)), data)


def pt2(folder, program, fmt=b"pt2", models=("model",)):
    m = [(folder + "/archive_format", fmt), (folder + "/archive_version", b"0"),
         (folder + "/byteorder", b"little"), (folder + "/.data/version", b"6\n")]
    if program is not None:
        m += [(folder + "/models/%s.json" % n, program) for n in models]
    return m


def write(name, data):
    if "." not in name:
        name += ".json"
    with open(os.path.join(dst, name), "wb") as f:
        f.write(data)


# 10,000 nested arrays inside the top-level object
write("json_deep_nesting.json", b'{"schema_version": ' + b"[" * 10000 + b"]" * 10000 + b"}\n")
# a TreeSpec 300 tuples deep (each level a valid node)
p = json.loads(valid)
spec = {"type": None, "context": None, "children_spec": []}
for _ in range(300):
    spec = {"type": "builtins.tuple", "context": "null", "children_spec": [spec]}
p["graph_module"]["module_call_graph"][0]["signature"]["out_spec"] = json.dumps([1, spec])
write("spec_deep_nesting.json", json.dumps(p).encode())
# ---- the limits of README "Limits" (core/export/program.h), one step past each
def mutate(name, fn):
    q = json.loads(valid)
    fn(q)
    write(name, json.dumps(q).encode())


def graph(q):
    return q["graph_module"]["graph"]


def stack(q, text):
    graph(q)["nodes"][0]["metadata"]["nn_module_stack"] = text


LONG = "a" * 4097  # EXDB_MAX_NAME_BYTES + 1
DEEP = ".".join("m%d" % i for i in range(65))  # EXDB_MAX_MODULE_DEPTH + 1 levels
mutate("limit_name_value", lambda q: graph(q)["inputs"][1]["as_tensor"].update(name=LONG))
mutate("limit_name_target", lambda q: graph(q)["nodes"][0].update(target="torch.ops.aten." + LONG))
mutate("limit_name_node", lambda q: graph(q)["nodes"][1].update(name=LONG))
mutate("limit_name_fqn", lambda q: q["graph_module"]["module_call_graph"][1].update(fqn=LONG))
mutate("limit_stack_type", lambda q: stack(q, "L__self__,,m.Net;L__self__fc,fc," + LONG))
mutate("limit_stack_depth",
       lambda q: stack(q, ";".join(["L__self__,,m.Net"] + ["k%d,%s,T" % (i, DEEP[:DEEP.index(".m%d" % (i + 1))] if i < 64 else DEEP) for i in range(64)])))
mutate("limit_stack_path_depth", lambda q: stack(q, "L__self__,,m.Net;L__self__fc,%s,T" % DEEP))
mutate("limit_fqn_depth", lambda q: q["graph_module"]["module_call_graph"][1].update(fqn=DEEP))
# 4,000,001 empty nodes (12 MB): refused by count before any is read
s = json.dumps(json.loads(valid))
k = s.index('"nodes": [') + len('"nodes": [')
write("limit_nodes.json", (s[:k] + "{}," * 4000001 + s[k:]).encode())
# 1,000,001 module_call_graph entries (19 MB)
k = s.index('"module_call_graph": [') + len('"module_call_graph": [')
write("limit_modules.json",
      (s[:k] + "".join('{"fqn": "m%d"},' % i for i in range(1000001)) + s[k:]).encode())
# 300 module_call_graph fqns of 4 KB and 64 components: 64 MiB of module
# fqns with their parents, from 1.2 MB
s = json.dumps(json.loads(valid))
fqns = ["y%03d%s.%s" % (i, "p" * 3800, ".".join("c%d" % j for j in range(62))) for i in range(300)]
write("limit_module_bytes.json",
      (s[:k] + "".join('{"fqn": "%s"},' % f for f in fqns) + s[k:]).encode())
# an op target with a Latin-1 byte (0xE9), not UTF-8
write("name_not_utf8.json", valid.replace(b"aten.linear.default", b"aten.lin\xe9ar.default", 1))
# the same byte in an input spec's target, on one line after the nodes and
# tensor_values (the first pass's skim found the text before them ASCII)
write("spec_target_not_utf8.json", s.encode().replace(
    b'"parameter_name": "fc.weight"', b'"parameter_name": "fc.w\xe9ight"', 1))
os.mkdir(os.path.join(dst, "a_directory.json"))
# a /proc file: stat says size 0, reading gives text (issue 13 item 13)
os.symlink("/proc/self/status", os.path.join(dst, "proc_file.json"))
# not a zip: binary bytes behind a .pt2 name
write("zip_garbage.pt2", bytes((i * 37 + 11) % 256 for i in range(512)))
# a zip local-header signature followed by garbage
write("zip_corrupt.pt2", b"PK\x03\x04" + bytes((i * 53 + 7) % 256 for i in range(300)))
zipit("zip_no_program.pt2", pt2("zip_no_program", None))
zipit("zip_wrong_format.pt2", pt2("zip_wrong_format", valid, fmt=b"pt3"))
zipit("zip_two_models.pt2", pt2("zip_two_models", valid, models=("model", "other")))
zipit("zip_torchscript.pt2", [("zip_torchscript/data.pkl", b"\x80\x02}q\x00."),
                              ("zip_torchscript/constants.pkl", b"\x80\x02)."),
                              ("zip_torchscript/version", b"3\n"),
                              ("zip_torchscript/code/__torch__.py", b"")])
zipit("zip_bad_program.pt2", pt2("zip_bad_program", valid.replace(b'"kind": 1}', b'"kind": "1"}', 1)))
zipit("zip_legacy_bad_program.zip", [("serialized_exported_program.json", valid[:-40]),
                                     ("version", b"8.20")])
# a valid archive cut in half
zipit("zip_truncated.pt2", pt2("zip_truncated", valid))
path = os.path.join(dst, "zip_truncated.pt2")
data = open(path, "rb").read()
write("zip_truncated.pt2", data[: len(data) // 2])
# the program member's declared size patched to 3.75 GiB in both headers
zipit("zip_huge_member.pt2", pt2("zip_huge_member", valid))
path = os.path.join(dst, "zip_huge_member.pt2")
data = bytearray(open(path, "rb").read())
name = b"zip_huge_member/models/model.json"
huge = struct.pack("<I", 0xF0000000)
loc = data.index(b"PK\x03\x04")  # first local header
while True:
    n = struct.unpack_from("<H", data, loc + 26)[0]
    if data[loc + 30: loc + 30 + n] == name:
        data[loc + 18: loc + 22] = huge  # compressed size
        data[loc + 22: loc + 26] = huge  # uncompressed size
        break
    loc = data.index(b"PK\x03\x04", loc + 4)
cen = data.index(b"PK\x01\x02")
while True:
    n = struct.unpack_from("<H", data, cen + 28)[0]
    if data[cen + 46: cen + 46 + n] == name:
        data[cen + 20: cen + 24] = huge
        data[cen + 24: cen + 28] = huge
        break
    cen = data.index(b"PK\x01\x02", cen + 4)
write("zip_huge_member.pt2", bytes(data))
# the program member flagged encrypted (general purpose bit 0) in both headers
# The archive `case` made of the valid program, its program member's local
# and central headers' offsets (flags field, sizes field) given to edit.
def patch_member_headers(case, edit):
    zipit(case + ".pt2", pt2(case, valid))
    data = bytearray(open(os.path.join(dst, case + ".pt2"), "rb").read())
    name = (case + "/models/model.json").encode()
    for sig, flags, sizes, nlen, at in ((b"PK\x03\x04", 6, 18, 26, 30),
                                        (b"PK\x01\x02", 8, 20, 28, 46)):
        i = data.index(sig)
        while True:
            n = struct.unpack_from("<H", data, i + nlen)[0]
            if data[i + at: i + at + n] == name:
                edit(data, i + flags, i + sizes)
                break
            i = data.index(sig, i + 4)
    write(case + ".pt2", bytes(data))


def set_encrypted(data, flags, sizes):
    data[flags] |= 1


def set_sizes_ffffffff(data, flags, sizes):
    data[sizes: sizes + 8] = b"\xff" * 8


patch_member_headers("zip_encrypted_member", set_encrypted)
# a JSON file past the 2 GiB program limit (sparse: '{' and a hole)
with open(os.path.join(dst, "json_over_limit.json"), "wb") as f:
    f.write(b"{")
    f.truncate((2 << 30) + 10)
# two members named byteorder (zipfile warns and writes both)
import warnings
warnings.simplefilter("ignore")
zipit("zip_dup_member.pt2", pt2("zip_dup_member", valid) + [("zip_dup_member/byteorder", b"big")])
# 300,000 models and none chosen: each model name was compared with every
# earlier one (24 s for 100,000 in the release build; this one would take
# minutes, past the runner's timeout)
zipit("zip_many_models.pt2", pt2("zip_many_models", None)
      + [("zip_many_models/models/m%d.json" % i, b"{}") for i in range(300000)])
# ---- memory (cases mem_*: peak RSS bounded, see MEM_FACTOR below); each
# is refused only after its big part has been read
s = json.dumps(json.loads(valid))
k = s.index('"nodes": [') + len('"nodes": [')
# 3,900,000 empty nodes (11.7 MB): 891 MB reserved before the first was refused
write("mem_empty_nodes.json", (s[:k] + "{}," * 3900000 + s[k:]).encode())
# a node argument of 4M ints (8 MB), then an unknown argument: 64 bytes of
# memory per byte of JSON
q = json.loads(valid)
graph(q)["nodes"][1]["inputs"] += [{"name": "dims", "arg": {"as_ints": [1]}, "kind": 1},
                                   {"name": "z", "arg": {"as_foo": 1}, "kind": 1}]
t = json.dumps(q)
m = t.index('"as_ints": [') + len('"as_ints": [')
write("mem_int_list.json", (t[:m] + "1," * 3999999 + t[m:]).encode())
# a node with 300,000 None outputs (5 MB), then an unknown output kind
node = ('{"target": "torch.ops.aten.x.default", "inputs": [], "outputs": ['
        + '{"as_none": null}, ' * 300000 + '{"as_foo": {}}], "metadata": {}}, ')
write("mem_none_outputs.json", (s[:k] + node + s[k:]).encode())
# 8,000 higher-order ops with a one-node as_graph body each (7 MB), then an
# unknown argument: the subgraph list grew quadratically (820 MB)
q = json.loads(valid)
first, last = graph(q)["nodes"]
nodes, prev = [first], "linear"
for i in range(8000):
    body = {"inputs": [{"as_tensor": {"name": "a"}}], "outputs": [{"as_tensor": {"name": "r"}}],
            "nodes": [{"target": "torch.ops.aten.relu.default",
                       "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "a"}}, "kind": 1}],
                       "outputs": [{"as_tensor": {"name": "r"}}], "metadata": {}, "name": "r"}]}
    nodes.append({"target": "torch.ops.higher_order.wrap_with_set_grad_enabled",
                  "inputs": [{"name": "", "arg": {"as_bool": False}, "kind": 1},
                             {"name": "", "arg": {"as_graph": {"name": "body%d" % i, "graph": body}}, "kind": 1},
                             {"name": "", "arg": {"as_tensor": {"name": prev}}, "kind": 1}],
                  "outputs": [{"as_tensor": {"name": "h%d" % i}}], "metadata": {},
                  "is_hop_single_tensor_return": True, "name": "h%d" % i})
    prev = "h%d" % i
last["inputs"] = [{"name": "self", "arg": {"as_tensor": {"name": prev}}, "kind": 1},
                  {"name": "z", "arg": {"as_foo": 1}, "kind": 1}]
graph(q)["nodes"] = nodes + [last]
write("mem_hop_nodes.json", json.dumps(q).encode())
# the program member's declared sizes 0xFFFFFFFF in both headers, with no
# ZIP64 extra field (issue 22 item 7: libzip's lookup of that field failed
# with ZIP_ER_NOENT and exdb said "No such file" of a file that exists)
patch_member_headers("zip_size_ffffffff", set_sizes_ffffffff)
# /proc/self/mem (issue 22 item 7): size 0, and reading it at offset 0
# fails; it was called an empty file
os.symlink("/proc/self/mem", os.path.join(dst, "proc_self_mem.bin"))
# a zip bomb by ratio (issue 22 item 5): a 66 KB archive whose program (the
# valid one with 64 MiB of spaces in its JSON) deflates 1012:1; it loaded,
# costing 64x its size (2.1 GB and 15 s for a 1 MB archive inflating to
# 1 GiB). Refused by ratio before inflating.
bomb = valid.replace(b"{", b"{" + b" " * (64 << 20), 1)
with zipfile.ZipFile(os.path.join(dst, "mem_zip_bomb_ratio.pt2"), "w") as z:
    for path, data in pt2("mem_zip_bomb_ratio", bomb):
        zi = zipfile.ZipInfo(path, (1980, 1, 1, 0, 0, 0))
        zi.compress_type = zipfile.ZIP_DEFLATED
        z.writestr(zi, data, compresslevel=9)
# ---- a program big enough (EXDB_LAZY_META_MIN nodes) that its nodes'
# stack_trace, torch_fn... are read when first used (docs/json-reader.md):
# _valid.json with 5,000 relu nodes, node 4001 (%r4000) malformed. The
# load succeeds; `info node r4000` fails with the one-line error each time
# it reads it, `info node r3999` answers in between (lazy_* cases run
# those commands with `set on-error continue`: exit 1 at the end).
def lazy_chain(name, meta_fn, raw=None):
    q = json.loads(valid)
    g = q["graph_module"]["graph"]
    lin, last = g["nodes"]
    prev, nodes = "linear", [lin]
    for i in range(5000):
        n = json.loads(json.dumps(last))
        n["inputs"][0]["arg"]["as_tensor"]["name"] = prev
        prev = n["name"] = n["outputs"][0]["as_tensor"]["name"] = "r%d" % i
        n["metadata"]["stack_trace"] = 'File "m.py", line %d, in forward' % i
        g["tensor_values"][prev] = g["tensor_values"]["relu"]
        nodes.append(n)
    last["inputs"][0]["arg"]["as_tensor"]["name"] = prev
    g["nodes"] = nodes + [last]
    meta_fn(nodes[4001]["metadata"])
    data = json.dumps(q).encode()
    write(name, data.replace(b'"RAW"', raw) if raw else data)


lazy_chain("lazy_meta_escape", lambda m: m.update(stack_trace="RAW"), b'"File \\"m.py\\", line 1\\q"')
lazy_chain("lazy_meta_nul", lambda m: m.update(torch_fn="a\u0000b"))
lazy_chain("lazy_meta_surrogate", lambda m: m.update(my_key="x\ud800y"))
PY
}

if ! generate; then
    echo "malformed: could not generate the binary cases (python3 needed)"
    echo "malformed: 0 passed, 1 failed"
    exit 1
fi

pass=0
fail=0
failed() {
    echo "FAIL $1"
    fail=$((fail + 1))
}

# Peak RSS bound of the mem_* cases, bytes per input byte. The release build
# takes at most 26 on them (a list of 1-digit ints: 24 bytes of DOM and IR
# per element of 2 bytes); AddressSanitizer's shadow memory adds an eighth.
MEM_FACTOR=32

# Runs "$@" and writes its peak RSS in KiB (the largest of it and its
# children) to $out/rss. ASan's quarantine is turned off: the freed memory
# it keeps resident is ASan's, not exdb's.
measured() {
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0" python3 -c '
import resource, subprocess, sys
rc = subprocess.call(sys.argv[2:])
with open(sys.argv[1], "w") as f:
    f.write("%d\n" % resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.exit(rc if rc >= 0 else 128 - rc)' "$out/rss" "$@"
}

# The base program must load, or every mutation of it proves nothing.
if (cd "$here" && measured "$exdb" _valid.json -batch </dev/null >"$out/stdout" 2>"$out/stderr"); then
    if [ -s "$out/stderr" ]; then
        failed "_valid.json: loads but prints on stderr: $(head -c 300 "$out/stderr" | head -n 1)"
    else
        pass=$((pass + 1))
    fi
else
    failed "_valid.json: does not load: $(head -c 300 "$out/stderr" | head -n 1)"
fi
base_kb=$(cat "$out/rss" 2>/dev/null || echo 0)

# Every committed input needs its .expected (else it would silently not run).
for f in "$here"/*; do
    b=${f##*/}
    case $b in
    _valid.json | README.md | *.expected) continue ;;
    esac
    [ -e "$here/${b%.*}.expected" ] || failed "$b: no ${b%.*}.expected beside it"
done

for exp in "$here"/*.expected; do
    name=${exp##*/}
    name=${name%.expected}
    # shellcheck disable=SC2254
    case $name in ${EXDB_TEST_NAME:-*}) ;; *) continue ;; esac
    dir=
    file=
    for d in "$gen" "$here"; do
        for cand in "$d/$name".*; do
            case $cand in
            *.expected | *"*") continue ;;
            esac
            dir=$d
            file=${cand##*/}
            break 2
        done
    done
    if [ -z "$file" ]; then
        failed "$name: no input file (tests/malformed/$name.* or a generated one)"
        continue
    fi
    export EXDB_SHAPE_FIRST_MIN=0
    case $name in
    mem_*) (cd "$dir" && measured timeout 120 "$exdb" "$file" -batch </dev/null >"$out/stdout" 2>"$out/stderr") ;;
    lazy_*) (cd "$dir" && exec timeout 120 "$exdb" "$file" -batch -ex 'set on-error continue' \
        -ex 'info node r4000' -ex 'info node r3999' -ex 'info node r4000' </dev/null >"$out/stdout" 2>"$out/stderr") ;;
    *) (cd "$dir" && exec timeout 120 "$exdb" "$file" -batch </dev/null >"$out/stdout" 2>"$out/stderr") ;;
    esac
    rc=$?
    if [ "$rc" -ne 1 ]; then
        failed "$name: exit status $rc, expected 1; stderr: $(head -c 300 "$out/stderr" | head -n 1)"
    elif ! cmp -s "$exp" "$out/stderr"; then
        failed "$name: stderr differs: got \"$(head -c 300 "$out/stderr" | head -n 1)\"$([ "$(wc -l <"$out/stderr")" -gt 1 ] && echo ' (and more lines)')"
    elif case $name in mem_*) true ;; *) false ;; esac &&
        ! awk -v kb="$(cat "$out/rss")" -v base="$base_kb" -v bytes="$(wc -c <"$dir/$file")" -v f="$MEM_FACTOR" \
            'BEGIN { exit !((kb - base) * 1024 <= f * bytes) }'; then
        failed "$name: peak RSS $(cat "$out/rss") KiB, over $MEM_FACTOR bytes per byte of its $(wc -c <"$dir/$file") bytes above _valid.json's $base_kb KiB"
    else
        pass=$((pass + 1))
    fi
    # shape first: the same refusal at the open or at the first IR command
    # (the cases of each folder in one session, below)
    [ "$(stat -L -c %s "$dir/$file" 2>/dev/null || echo 0)" -le 1048576 ] || continue
    [ "$dir" = "$gen" ] && w=gen || w=here
    printf "load '%s'\ninfo program\nprint code\n" "$file" >>"$out/shape_$w.cmd"
    printf '%s %s\n' "$name" "$file" >>"$out/shape_$w.cases"
done

# Shape first: each folder's cases of at most 1 MB in one session (`load`
# at the prompt opens them shape first), its --json answers read by
# Python: a case's error is its load's, or when the load succeeds, that of
# the `print code` after `info program`; it must be NAME.expected's line.
for w in here gen; do
    [ -s "$out/shape_$w.cases" ] || continue
    [ $w = gen ] && d=$gen || d=$here
    (cd "$d" && exec timeout 600 "$exdb" --json -batch -ex 'set on-error continue' \
        -x "$out/shape_$w.cmd" </dev/null >"$out/shape_$w.json" 2>"$out/shape_$w.err")
    rc=$?
    if [ $rc -gt 1 ] || [ -s "$out/shape_$w.err" ]; then
        failed "the shape-first session over tests/malformed ($w): exit $rc; stderr: $(head -c 300 "$out/shape_$w.err" | head -n 1)"
        continue
    fi
    res=$(python3 - "$out/shape_$w.json" "$out/shape_$w.cases" "$here" <<'PY'
import json, sys
answers = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8") if l.startswith("{")]
cases = [l.split() for l in open(sys.argv[2])]
i, ok = 0, 0
while answers and answers[0]["command"] != "load '%s'" % cases[0][1]:
    answers.pop(0)
for name, file in cases:
    a = answers[i:i + 3]
    i += 3
    exp = open("%s/%s.expected" % (sys.argv[3], name), encoding="utf-8", errors="replace").read()
    if len(a) < 3 or a[0]["command"] != "load '%s'" % file:
        print("FAIL %s (shape first): no answer to load '%s'" % (name, file))
        continue
    if a[0]["ok"] and not a[1]["ok"]:
        print("FAIL %s (shape first): info program after the load fails: %s" % (name, a[1].get("error")))
        continue
    got = a[0].get("error") if not a[0]["ok"] else a[2].get("error") if not a[2]["ok"] else None
    if got is None:
        print("FAIL %s (shape first): accepted, and print code answers" % name)
    elif got + "\n" != exp:
        print("FAIL %s (shape first): %s error differs: got \"%s\"" % (name, "the load's" if not a[0]["ok"] else "print code's", got[:300]))
    else:
        ok += 1
print("passed %d" % ok)
PY
)
    echo "$res" | grep '^FAIL' | sed 's/^FAIL //' | while IFS= read -r l; do echo "FAIL $l"; done
    fail=$((fail + $(echo "$res" | grep -c '^FAIL')))
    n=$(echo "$res" | sed -n 's/^passed //p')
    case $n in
    [0-9]*) pass=$((pass + n)) ;;
    *) failed "the shape-first checker over tests/malformed ($w) gave no count (its error is above)" ;;
    esac
done

# --json: the answer of a command that read a malformed field carries no
# data, as its text is dropped (a field it could not read would be null,
# "absent")
if (cd "$gen" && exec timeout 120 "$exdb" lazy_meta_nul.json --json -batch \
    -ex 'set on-error continue' -ex 'info node r4000' </dev/null 2>/dev/null) |
    grep '"command":"info node r4000"' | grep -q '^{"command":"info node r4000","ok":false,"output":"","error":'; then
    pass=$((pass + 1))
else
    failed "lazy_meta_nul --json: info node r4000 answers with data or without its error"
fi

echo "malformed: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
