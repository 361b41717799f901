#!/bin/sh
# seeds.sh [OUT_DIR] - builds the seed corpora of the fuzz harnesses into
# OUT_DIR/NAME/ (default build/fuzz/seeds), plus libFuzzer dictionaries
# OUT_DIR/NAME.dict, at run time:
#   - from the real programs tests/fuzz/find_real.sh finds ($REAL_PT2, else
#     shared/real_pt2 beside the repository, a folder above it or the main
#     worktree; read here, never copied into the repository): a few whole
#     small programs, programs
#     cut to their first K nodes, truncations, their TreeSpecs and
#     nn_module_stack strings, zip archives built around them;
#   - from tests/: the malformed-input corpus, the fixtures, the golden
#     command scripts, the fuzz regressions (each for its harness);
#   - for fuzz_cache, the reopen cache entries exdb ($EXDB, else ./exdb)
#     writes for the harness's fixtures;
#   - for fuzz_unflatten, adversarial module trees from
#     scripts/gen_modgraph.py: one module called many times, a module that
#     becomes its own descendant, shared modules nested deep, modules without
#     a graph between shared ones, stacks deeper than the first capacities,
#     a call with 65 arguments, a module with 9 children.
# Rebuilt from scratch every time; needs python3. Without the real programs
# the seeds come from tests/ alone, and it says so on stderr.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$root/build/fuzz/seeds}
case $out in /*) ;; *) out=$(pwd)/$out ;; esac
real=$("$root/tests/fuzz/find_real.sh") ||
    echo "seeds: no real programs found (set REAL_PT2=DIR): seeds from tests/ only" >&2
rm -rf "$out"
mkdir -p "$out"
# adversarial module trees for fuzz_unflatten (scripts/gen_modgraph.py)
mkdir -p "$out/unflatten"
for shape in "calls 3" "calls 64" "cycle 2" "cycle 5" "alias 3" "alias 9" "alias 20" \
    "graphless 2" "graphless 6" "deep 32" "args 65" "wide 9"; do
    # shellcheck disable=SC2086
    set -- $shape
    python3 "$root/scripts/gen_modgraph.py" "$1" "$2" --out "$out/unflatten/modgraph_$1_$2.json"
done
python3 - "$root" "$real" "$out" <<'PY'
import glob, hashlib, io, json, os, sys, warnings, zipfile

root, real, out = sys.argv[1:4]
HARNESSES = ("json", "load", "container", "treespec", "stack", "repl", "unflatten", "shape", "cache")
for h in HARNESSES:
    os.makedirs(os.path.join(out, h), exist_ok=True)


def seed(h, data, name=None):
    if isinstance(data, str):
        data = data.encode()
    name = name or hashlib.sha1(data).hexdigest()[:16]
    with open(os.path.join(out, h, name), "wb") as f:
        f.write(data)


def read(p):
    with open(p, "rb") as f:
        return f.read()


fixtures = sorted(glob.glob(os.path.join(root, "tests/fixtures/**/*.json"), recursive=True))
malformed = sorted(glob.glob(os.path.join(root, "tests/malformed/*.json")))
valid = read(os.path.join(root, "tests/malformed/_valid.json"))
reals = sorted(glob.glob(os.path.join(real, "*model.json"))) if os.path.isdir(real) else []
configs = sorted(glob.glob(os.path.join(real, "*_weights_config.json"))) if os.path.isdir(real) else []
reals_by_size = sorted(reals, key=os.path.getsize)

# ---- programs: small fixtures whole, real programs cut down


def cut_program(p, k):
    """The first k nodes of a real program, returning the last one's first
    tensor output (with its specs and the root call signature fixed up)."""
    p = json.loads(json.dumps(p))
    g = p["graph_module"]["graph"]
    nodes = g["nodes"][:k]
    last = None
    for n in reversed(nodes):
        for o in n.get("outputs", []):
            if "as_tensor" in o:
                last = o["as_tensor"]["name"]
                break
        if last:
            break
    if not last:
        return None
    g["nodes"] = nodes
    g["outputs"] = [{"as_tensor": {"name": last}}]
    sig = p["graph_module"]["signature"]
    sig["output_specs"] = [{"user_output": {"arg": {"as_tensor": {"name": last}}}}]
    leaf = '[1, {"type": null, "context": null, "children_spec": []}]'
    for e in p["graph_module"].get("module_call_graph", []):
        if e.get("fqn") == "" and e.get("signature"):
            e["signature"]["outputs"] = [{"as_tensor": {"name": last}}]
            e["signature"]["out_spec"] = leaf
    used = set()
    for a in g["inputs"]:
        for v in a.values():
            if isinstance(v, dict) and "name" in v:
                used.add(v["name"])
    for n in nodes:
        for o in n.get("outputs", []):
            for v in o.values():
                if isinstance(v, dict) and "name" in v:
                    used.add(v["name"])
                if isinstance(v, list):
                    used.update(x.get("name") for x in v if isinstance(x, dict))
        md = n.get("metadata", {})
        md.pop("stack_trace", None)
        md.pop("from_node", None)
    g["tensor_values"] = {k2: v for k2, v in g["tensor_values"].items() if k2 in used}
    return p


real_programs = []
for path in reals_by_size[:4]:
    try:
        real_programs.append(json.loads(read(path)))
    except Exception:
        pass

for path in fixtures + malformed:
    data = read(path)
    if len(data) <= 256 << 10:
        seed("load", data)
        seed("json", data)
# a target that is not UTF-8 (refused; the committed malformed cases have
# names with \u0000 and lone surrogates)
seed("load", valid.replace(b"aten.linear.default", b"aten.lin\xe9ar.default", 1))
for path in reals_by_size[:2]:
    seed("load", read(path))  # two whole small real programs
for p in real_programs:
    for k in (3, 8, 20):
        c = cut_program(p, k)
        if c:
            seed("load", json.dumps(c))
            seed("json", json.dumps(c))
    stripped = json.loads(json.dumps(p))
    for n in stripped["graph_module"]["graph"]["nodes"]:
        n.get("metadata", {}).pop("stack_trace", None)
    seed("load", json.dumps(stripped))

# ---- JSON: truncations and slices of real files, configs, odd numbers
for path in reals_by_size[:2] + configs[:1]:
    data = read(path)
    for n in (64, 1024, 4096, 16384):
        seed("json", data[:n])
for path in sorted(configs, key=os.path.getsize)[:2]:
    seed("json", read(path))
for text in ('{"a": [1, -0, 1.5e-7, 1E+400, -9223372036854775808, 9223372036854775807, '
             '9223372036854775808, Infinity, -Infinity, NaN, "\\u00e9\\ud83d\\ude00\\u0000", '
             'true, false, null, {"": {}}]}',
             '"\\ud800"', '[' * 513 + ']' * 513, '[' * 511 + ']' * 511, '{"a": 1, "a": 2}',
             "  \n\t{}\n", '{"k\\u0000": 1, "\\\\u0000": 2}'):
    seed("json", text)

# ---- TreeSpecs and module stacks from every program
specs, stacks = set(), set()


def collect(p):
    for e in p.get("graph_module", {}).get("module_call_graph", []) or []:
        sig = e.get("signature") if isinstance(e, dict) else None
        if isinstance(sig, dict):
            for k in ("in_spec", "out_spec"):
                if isinstance(sig.get(k), str):
                    specs.add(sig[k])
    for n in p.get("graph_module", {}).get("graph", {}).get("nodes", []) or []:
        st = n.get("metadata", {}).get("nn_module_stack") if isinstance(n, dict) else None
        if isinstance(st, str):
            stacks.add(st)


for path in fixtures + malformed + reals:
    try:
        collect(json.loads(read(path)))
    except Exception:
        pass
leaf = {"type": None, "context": None, "children_spec": []}
for t in (
        [1, {"type": "builtins.dict", "context": json.dumps(["a", 1, None, True]),
             "children_spec": [leaf] * 4}],
        [1, {"type": "collections.OrderedDict", "context": '["x"]', "children_spec": [leaf]}],
        [1, {"type": "collections.defaultdict",
             "context": {"default_factory_name": "builtins.list", "dict_context": ["k"]},
             "children_spec": [leaf]}],
        [1, {"type": "collections.namedtuple", "context": '"mypkg.Out"',
             "children_spec": [leaf, leaf]}],
        [1, {"type": "collections.deque", "context": '{"maxlen": null}', "children_spec": [leaf]}],
        [1, {"type": "builtins.list", "context": "null", "children_spec": [leaf, {
            "type": "builtins.tuple", "context": "null", "children_spec": [leaf]}]}],
        [1, {"type": "torch.fx.immutable_collections.immutable_dict",
             "context": json.dumps([{"__enum__": True, "fqn": "m.E", "name": "A"}]),
             "children_spec": [leaf]}],
        [1, {"type": "builtins.NoneType", "context": "null", "children_spec": []}],
        [1, leaf], [2, leaf], [1]):
    specs.add(json.dumps(t))
nested = leaf
for _ in range(201):
    nested = {"type": "builtins.tuple", "context": "null", "children_spec": [nested]}
specs.add(json.dumps([1, nested]))
for s in sorted(specs, key=len)[:300]:
    seed("treespec", s)
stack_list = sorted(stacks, key=len)
for s in stack_list[:150] + stack_list[-50:]:
    seed("stack", s)
for s in ("", "L__self__,,m.Net", "a@1,b,c;a@2,b,c", "a@,b,c", "a@x,b,c", "a,b;c,d,e",
          "k,p[0](x,y),t;k2,p,t[int, str]", ";;", "a,b,c,d", "a@99999999999,b,c",
          "L__self___layers_0@3,layers.0,torch.nn.modules.container.Sequential"):
    seed("stack", s)

# ---- containers: archives built around the valid program and real ones


def zipit(members, compression=zipfile.ZIP_STORED, force_zip64=False, comment=b""):
    b = io.BytesIO()
    with zipfile.ZipFile(b, "w", compression) as z:
        for path, data in members:
            zi = zipfile.ZipInfo(path, (1980, 1, 1, 0, 0, 0))
            zi.compress_type = compression
            with z.open(zi, "w", force_zip64=force_zip64) as f:
                f.write(data)
        z.comment = comment
    return b.getvalue()


def pt2(folder, program, models=("model",), weights=None, fmt=b"pt2"):
    pre = folder + "/" if folder else ""
    m = [(pre + "archive_format", fmt), (pre + "archive_version", b"0"),
         (pre + "byteorder", b"little"), (pre + ".data/version", b"6\n")]
    m += [(pre + "models/%s.json" % n, program) for n in models]
    if weights is not None:
        m += [(pre + "data/weights/model_weights_config.json", weights),
              (pre + "data/constants/model_constants_config.json", b'{"config": {}}')]
    return m


small_cfg = b'{"config": {"fc.weight": {"path_name": "weight_0", "is_param": true}}}'
seed("container", valid)  # bare JSON
seed("container", zipit(pt2("model", valid, weights=small_cfg)))
seed("container", zipit(pt2("model", valid, weights=small_cfg), zipfile.ZIP_DEFLATED))
seed("container", zipit(pt2("", valid)))
seed("container", zipit(pt2("archive", valid, models=("model", "other"))))
seed("container", zipit(pt2("archive", valid, fmt=b"pt3")))
seed("container", zipit(pt2("z64", valid), force_zip64=True, comment=b"exdb"))
seed("container", zipit([("serialized_exported_program.json", valid), ("version", b"8.20\n"),
                         ("serialized_state_dict.pt", b"\x80\x02}q\x00."),
                         ("serialized_constants.pt", b"\x80\x02}q\x00.")]))
seed("container", zipit([("legacy/serialized_exported_program.json", valid),
                         ("legacy/version", b"8.20")], zipfile.ZIP_DEFLATED))
seed("container", zipit([("ts/data.pkl", b"\x80\x02}q\x00."), ("ts/version", b"3\n")]))
seed("container", zipit(pt2("model", b"{}")))
# two members of one name (refused), and many models (issue 13)
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    seed("container", zipit(pt2("dup", valid) + [("dup/byteorder", b"big")]))
seed("container", zipit(pt2("many", valid) + [("many/models/m%d.json" % i, b"{}") for i in range(1000)]))
# ---- the archive shapes of issue 13 (items 7 and 9; zip64)


def zip64_eocd(data):
    """data (a zip without a comment) with a ZIP64 end of central directory
    record and locator before its end record, whose counts and offsets then
    say 0xFFFF/0xFFFFFFFF ("look in the ZIP64 record"), as writers do past
    65,535 entries or 4 GiB."""
    import struct
    end = data.rindex(b"PK\x05\x06")
    (_, _, _, n_disk, n_total, cd_size, cd_off, _) = struct.unpack("<IHHHHIIH", data[end:end + 22])
    z64_off = end
    rec = struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 45, 45, 0, 0, n_disk, n_total, cd_size, cd_off)
    loc = struct.pack("<IIQI", 0x07064B50, 0, z64_off, 1)
    eocd = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0)
    return data[:end] + rec + loc + eocd


with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    # the program member itself twice, different texts (refused on load)
    seed("container", zipit(pt2("dupm", valid) + [("dupm/models/model.json", b"{}")]))
    seed("container", zipit(pt2("dupm", valid, weights=small_cfg) +
                            [("dupm/data/weights/model_weights_config.json", b'{"config": {}}')],
                            zipfile.ZIP_DEFLATED))
    # the same name at the root and under the folder; two archive folders
    seed("container", zipit(pt2("twin", valid) + [("models/model.json", valid)]))
    seed("container", zipit(pt2("one", valid) + pt2("two", valid)))
# many models that all load, and many with one name repeated
seed("container", zipit(pt2("many2", valid, models=tuple("m%03d" % i for i in range(64)))))
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    seed("container", zipit(pt2("manydup", valid) +
                            [("manydup/models/m.json", b"{}") for _ in range(200)]))
# zip64: extra fields on every member, and a ZIP64 end record
seed("container", zipit(pt2("z64d", valid, weights=small_cfg), zipfile.ZIP_DEFLATED,
                        force_zip64=True))
seed("container", zip64_eocd(zipit(pt2("z64e", valid))))
seed("container", zip64_eocd(zipit(pt2("z64m", valid, models=("a", "b", "c")), force_zip64=True)))
if real_programs:
    prog = json.dumps(cut_program(real_programs[0], 8) or {}).encode()
    cfg = read(sorted(configs, key=os.path.getsize)[0])[:4096] if configs else small_cfg
    seed("container", zipit(pt2("model", prog, weights=cfg), zipfile.ZIP_DEFLATED))
    seed("container", zipit(pt2("model", prog, weights=small_cfg)))

# ---- unflatten: the loader's programs (the unflatten fixtures first of all)
for f in os.listdir(os.path.join(out, "load")):
    seed("unflatten", read(os.path.join(out, "load", f)), f)

# ---- shape: the loader's programs, and programs of more than the 256
# nodes the shape read's tally hands to a thread at a time (the real
# programs of 262 to 297 nodes, a synthetic one of 344 from
# scripts/gen_synth.py),
# their metadata dropped to stay under run.sh's 256 KiB


def bare(p):
    for n in p["graph_module"]["graph"]["nodes"]:
        n["metadata"] = {}
    return json.dumps(p, separators=(",", ":"))


for f in os.listdir(os.path.join(out, "load")):
    seed("shape", read(os.path.join(out, "load", f)), f)
for path in reals_by_size[5:8]:  # 262 to 297 nodes
    seed("shape", bare(json.loads(read(path))))
import subprocess
synth = os.path.join(out, "synth.json")
if subprocess.call([sys.executable, os.path.join(root, "scripts/gen_synth.py"), "--nodes", "344",
                    "--out", synth]) == 0:
    seed("shape", bare(json.loads(read(synth))), "synth_344")
    os.remove(synth)

# ---- cache: the reopen cache's entries exdb writes for fuzz_cache's
# programs (tests/fuzz/fuzz_cache.c's list), each opened once shape first
# with a cache folder of its own; the harness writes its own path, file
# identity and version into them. exdb: $EXDB, else the repository's
# ./exdb; none: no cache seeds (said on stderr). A file changed less than
# 2 s ago gets no entry (git's racy clean): wait for the fixtures to be
# older (a fresh checkout).
import shutil, tempfile, time
CACHE_FIXTURES = ("const_output.json", "const_inputs_multi_out.json", "repeated_key.json",
                  "sig_names_targets.json", "in_spec_flat_tuple.json", "tied_embeddings.json",
                  "arg_kinds.json", "kwargs.pt2")
exdb = os.environ.get("EXDB") or os.path.join(root, "exdb")
if not os.access(exdb, os.X_OK):
    sys.stderr.write("seeds: no exdb binary (%s; set EXDB=PATH): no cache seeds\n" % exdb)
else:
    paths = [os.path.join(root, "tests/fixtures", n) for n in CACHE_FIXTURES]
    newest = max(max(os.stat(q).st_mtime, os.stat(q).st_ctime) for q in paths)
    while time.time() < newest + 2.05:
        time.sleep(0.1)
    for path in paths:
        xdg = tempfile.mkdtemp(prefix="exdb-seed-cache-")
        env = dict(os.environ, XDG_CACHE_HOME=xdg, EXDB_SHAPE_FIRST_MIN="0", EXDB_CACHE_SYNC="1")
        env.pop("EXDB_CACHE", None)
        # the shape entry at the open, the IR entry after the build
        subprocess.call([exdb, "-q", path, "-batch", "-ex", "info program", "-ex", "print graph"],
                        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        d = os.path.join(xdg, "exdb")
        for suffix in (".shape", ".ir"):
            entries = [e for e in os.listdir(d) if e.endswith(suffix)] if os.path.isdir(d) else []
            if len(entries) == 1:
                seed("cache", read(os.path.join(d, entries[0])), os.path.basename(path) + suffix)
            else:
                sys.stderr.write("seeds: exdb wrote no cache entry (%s) for %s\n" % (suffix, path))
        shutil.rmtree(xdg, ignore_errors=True)

# ---- every harness: the inputs its regressions keep (tests/fuzz/regressions)
for h in HARNESSES:
    for path in sorted(glob.glob(os.path.join(root, "tests/fuzz/regressions", h, "*"))):
        seed(h, read(path), "regression_" + os.path.basename(path))

# ---- REPL command scripts: the golden scripts and every command
for path in sorted(glob.glob(os.path.join(root, "tests/golden/*.cmd"))):
    lines = [l for l in read(path).decode("utf-8", "replace").splitlines()
             if not l.startswith("# args")]
    seed("repl", "\n".join(lines) + "\n")
for text in (
        "info program\ninfo signature\ninfo module-call-graph\ninfo facts\ninfo modules\n",
        "print graph\nprint tabular\np node x\nprint node relu add\nprint module \"\"\n",
        "lint\nlint --json\ndce --dry-run\ndce\nundo\nundo\ndce\nprint graph\n",
        "unflatten\nmodules\nmodule encoder\nunflatten restart\nstepi 5\nbacktrace\nframe\n"
        "frame 1\nstep\nnext\nfinish\nreverse-stepi 3\ngoto 7\nunflatten run\n",
        "set on-error continue\nset trace-commands on\nshow\nhelp\nhelp print\necho 'a b' \"c\\\"d\" e\\ f\n",
        "h\ni p\nq\n", "stepi 100000\nreverse-stepi 100000\ngoto 0\n", "dce\nunflatten\nundo\nstepi\n",
        "break module encoder\nbreak node relu\ntbreak op *.relu.*\nwatch node-map add\n"
        "info breakpoints\nrun\ncontinue\nbt\nup\ndown\nlist\nprint frame 1\nc\n"
        "condition 1 depth > 1\ndisable 1\nenable\ndelete 2\nreverse-continue\n"
        "reverse-finish\nreverse-next\nrs 2\nrestart\n",
        "break event EXIT if fqn == encoder\nrun\nnext 3\nstep 2\nfin\nlist 3\nlist relu\n"
        "set output json\nset listsize 3\nset color off\nshow\npwd\ninfo frame\n"):
    seed("repl", text)

# ---- dictionaries: the keys and string values of the formats
keys = set()


def walk(v):
    if isinstance(v, dict):
        for k, x in v.items():
            keys.add(k)
            walk(x)
    elif isinstance(v, list):
        for x in v:
            walk(x)


for p in real_programs[:1] + [json.loads(valid)]:
    walk(p)


def dict_file(name, words):
    # libFuzzer's dictionary format: one "token" a line; backslash, quote and \xNN escapes
    with open(os.path.join(out, name + ".dict"), "w") as f:
        for w in sorted(words):
            b = w.encode("latin-1")
            esc = "".join("\\" + chr(c) if c in (0x22, 0x5C) else
                          chr(c) if 0x20 <= c < 0x7F else "\\x%02X" % c for c in b)
            f.write('"%s"\n' % esc)


dict_file("load", {json.dumps(k) for k in keys} | {"as_tensor", "as_int", "as_sym_int", "as_expr",
                                                    "nn_module_stack", "torch.ops.aten.", "null",
                                                    "true", "false", "Infinity", "NaN"})
dict_file("shape", {json.dumps(k) for k in keys} | {"as_tensor", "as_tensors", "as_none", "as_graph",
                                                     "as_sym_int", "as_sym_ints", "as_sym_float",
                                                     "is_hop_single_tensor_return", "\\",
                                                     "torch.ops.higher_order.", "operator.getitem",
                                                     "null", "true", "false", "Infinity", "NaN"})
dict_file("unflatten", {json.dumps(k) for k in keys} | {"nn_module_stack", "L__self__", "@1",
                                                         "torch.ops.higher_order.", "copy_"})
dict_file("json", {"null", "true", "false", "Infinity", "-Infinity", "NaN", "\\u", "\\ud800",
                   "e+", "E-", "[", "{", "\": "})
dict_file("treespec", {'"type"', '"context"', '"children_spec"', "builtins.tuple", "builtins.dict",
                       "collections.defaultdict", "dict_context", "default_factory_name",
                       "collections.namedtuple", "collections.OrderedDict", "null", "[1, "})
dict_file("cache", {json.dumps(k) for k in keys} | {"EXDBSHP1", "EXDBIR01", "\x00\x00\x00\x00",
                                                     "\xff\xff\xff\xff", "as_tensor", "null"})
dict_file("stack", {"L__self__", "@", ",", ";", "(", ")", "[", "]", "torch.nn.modules."})
dict_file("container", {"PK\x03\x04", "PK\x01\x02", "PK\x05\x06", "PK\x06\x06", "PK\x06\x07",
                        "archive_format", "models/", ".json", "pt2", "version",
                        "serialized_exported_program.json", "data/weights/", "data.pkl"})
dict_file("repl", {"info", "print", "node", "module", "modules", "graph", "tabular", "program",
                   "signature", "module-call-graph", "facts", "lint", "--json", "dce",
                   "--dry-run", "undo", "unflatten", "run", "restart", "stepi", "step", "next",
                   "finish", "reverse-stepi", "goto", "backtrace", "frame", "set", "show", "help",
                   "echo", "quit", "on-error", "continue", "trace-commands", "encoder", "break",
                   "tbreak", "watch", "delete", "disable", "enable", "condition", "node-map",
                   "event", "exit", "op", "if", "up", "down", "list", "reverse-step",
                   "reverse-next", "reverse-finish", "reverse-continue", "restart", "output",
                   "listsize", "color", "breakpoints", "COPY", "ENTER", "EXIT",
                   "encoder.layers.0", "\n", "'", "\"", "\\"})
for h in HARNESSES:
    print("seeds: %s: %d files" % (h, len(os.listdir(os.path.join(out, h)))))
PY
