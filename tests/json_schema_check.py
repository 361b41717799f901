#!/usr/bin/env python3
"""json_schema_check.py - every command's --json answer against docs/json-schema.json.

  python3 tests/json_schema_check.py EXDB [REAL_PT2_DIR]

Runs exdb --json on the bundled example with a script that uses every
command of the command table (and every subcommand word), and on one real
program from REAL_PT2_DIR when it is there, and checks:

  - the schema has an entry for every command and subcommand `help` lists
    (a command added without one fails here);
  - every answer validates: the envelope's properties and its command's,
    no others; the entry's required fields when "ok" is true;
  - every schema entry was answered at least once with "ok": true, by the
    script below or by a golden test (tests/golden/*.cmd) that uses the
    command, run again with --json (so a new subcommand's golden is its
    example here);
  - docs/json.md describes every answer (names the command, or one whose
    schema entry is the same); render_file's view enum is render's views;
  - `help COMMAND` names each of its subcommand words;
  - the text ("output") is still there beside the data.

The validator handles the subset of JSON Schema the schema file uses (type,
enum, properties, required, additionalProperties, items, anyOf,
minProperties, maxProperties, $ref); standard library only.
Prints "json-schema: N passed, M failed".
"""
import json
import re
import os
import shlex
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCHEMA = os.path.join(ROOT, "docs", "json-schema.json")
EXAMPLE = os.path.join(ROOT, "tests", "fixtures", "example.json")


class Invalid(Exception):
    pass


TYPES = {
    "null": lambda v: v is None,
    "boolean": lambda v: isinstance(v, bool),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "string": lambda v: isinstance(v, str),
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
}


def resolve(root, ref):
    if not ref.startswith("#/"):
        raise Invalid("unsupported $ref " + ref)
    node = root
    for part in ref[2:].split("/"):
        node = node[part]
    return node


def validate(root, schema, v, path="$"):
    """Raises Invalid naming the JSON path where v does not fit schema."""
    if schema is True or schema == {}:
        return
    if schema is False:
        raise Invalid("%s: not allowed" % path)
    if "$ref" in schema:
        validate(root, resolve(root, schema["$ref"]), v, path)
    if "anyOf" in schema:
        errs = []
        for s in schema["anyOf"]:
            try:
                validate(root, s, v, path)
                break
            except Invalid as e:
                errs.append(str(e))
        else:
            raise Invalid("%s: matches none of anyOf (%s)" % (path, "; ".join(errs)))
    if "type" in schema:
        types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(TYPES[t](v) for t in types):
            raise Invalid("%s: %s is not %s" % (path, json.dumps(v)[:80], "/".join(types)))
    if "enum" in schema and v not in schema["enum"]:
        raise Invalid("%s: %s not one of %s" % (path, json.dumps(v)[:80], schema["enum"]))
    if isinstance(v, dict):
        props = schema.get("properties", {})
        for k in schema.get("required", []):
            if k not in v:
                raise Invalid("%s: missing %r" % (path, k))
        if "minProperties" in schema and len(v) < schema["minProperties"]:
            raise Invalid("%s: fewer than %d properties" % (path, schema["minProperties"]))
        if "maxProperties" in schema and len(v) > schema["maxProperties"]:
            raise Invalid("%s: more than %d properties" % (path, schema["maxProperties"]))
        extra = schema.get("additionalProperties", True)
        for k, x in v.items():
            if k in props:
                validate(root, props[k], x, "%s.%s" % (path, k))
            elif extra is False:
                raise Invalid("%s: unexpected property %r" % (path, k))
            elif isinstance(extra, dict):
                validate(root, extra, x, "%s.%s" % (path, k))
    if isinstance(v, list) and "items" in schema:
        for i, x in enumerate(v):
            validate(root, schema["items"], x, "%s[%d]" % (path, i))


def answer_schema(root, key, ok):
    """The schema of command KEY's answer: the envelope and the entry."""
    env, entry = root["envelope"], root["commands"][key]
    props = dict(env["properties"])
    required = list(env["required"])
    parts = []
    if "$ref" in entry:
        parts.append(resolve(root, entry["$ref"]))
    parts.append(entry)
    extra = False
    for p in parts:
        props.update(p.get("properties", {}))
        if ok:
            required += p.get("required", [])
        if p.get("additionalProperties") is True:
            extra = True
    return {"type": "object", "properties": props, "required": required,
            "additionalProperties": extra}


# The command table (table_keys fills them from help's JSON): command name
# -> its subcommand words, and gdb's short names -> the command.
TABLE = {}
SHORT = {}


def whole(word, names):
    """The name word is, or is the unique prefix of (exdb's lookup)."""
    if word in names:
        return word
    hits = [n for n in names if n.startswith(word)]
    return hits[0] if len(hits) == 1 else word


def entry_key(root, line):
    """The schema entry a command line answers to (gdb's short names and
    unique prefixes are resolved as exdb does: "bt", "inf prog")."""
    words = line.split()
    if not words:
        return None
    cmd = words[0].split("/")[0]  # display/json
    if cmd.startswith("!"):  # gdb's !COMMAND is shell COMMAND
        return "shell"
    cmd = SHORT.get(cmd) or whole(cmd, TABLE)
    subs = TABLE.get(cmd) or []
    words = [words[0]] + [whole(w, subs) if not w.startswith("-") else w for w in words[1:]]
    for w in words[1:]:  # an option with an answer of its own: "lint --list"
        if w.startswith("--") and ("%s %s" % (cmd, w)) in root["commands"]:
            return "%s %s" % (cmd, w)
    rest = [w for w in words[1:] if not w.startswith("-")]
    if rest and ("%s %s" % (cmd, rest[0])) in root["commands"]:
        return "%s %s" % (cmd, rest[0])
    return cmd


# Every command and subcommand, in an order that leaves each one something
# to answer. The commands a breakpoint runs (commands N ... end) and the
# lines of `source` answer too, as their own lines.
EXAMPLE_SCRIPT = """\
set on-error continue
set $n = 1
print $n
print $_event
if $n == 1
echo one
else
echo other
end
while $n < 3
set $n = $n + 1
end
help
help info
help aliases
apropos lint
alias pn = print node
show alias
show
show listsize
set listsize 12
set logging file {tmp}/exdb-log.txt
set pagination off
set height 40
quit-if-complete
info program
info cache
info signature
info module-call-graph
info facts
info modules
info modules encoder.layers.0 --full
info module encoder.layers.0.attn
whatis relu
whatis embed.weight
whatis encoder.layers.0
print relu
print encoder.layers.0.act
print embed.weight
info node relu
info line permute_1
info line x
info lines
info lines encoder.layers.0
info calls encoder.layers.0.act
find --op call_function --target 'aten.relu*'
info nodes relu* --users 1
print node relu*
set substitute-path /home/dev/src/tinyenc {root}/tests/fixtures
show substitute-path
list source add_1
list source demo.py:32
print graph
print tabular
print node relu native_layer_norm output p_embed_weight
print module encoder
print module encoder.layers.0.act
print module ""
print code
print readable --stride --device
print code module
print readable module encoder
save code --force {tmp}/flat_code.py
save code --force module encoder {tmp}/encoder_code.py
echo hello
pwd
cd {tmp}
cd {root}
source {tmp}/inner.exdb
pipe info program | wc -l
shell echo from-the-shell
!true
break relu
tbreak addmm_5
break module encoder.layers.1
break line demo.py:33
watch node-map relu
condition 1 call == 1
condition 1
ignore 1 0
commands 3
silent
info frame
end
disable 1
enable 1
disable display
enable display
info breakpoints
info watchpoints
display
display frame
display/json backtrace
info display
run
backtrace
frame
up
down
frame 0
info frame
info node-map
info placeholders
info seen-nodes
info seen-modules
info ivals
info events 0-3
print frame
list
step
stepi
next
finish
continue
reverse-step
reverse-stepi
reverse-next
reverse-continue
delete display 1
undisplay
delete 1
delete
goto 40
step 3
reverse-finish
until
advance module head
start
restart
unflatten
info events later
list
info event
explain
unflatten restart
unflatten run
lint
lint module encoder
lint all
lint --list
lint --fail-on note
dce --dry-run
dce
undo
dce module encoder.layers.0 --dry-run
dce all --dry-run
save --dry-run
save --force {tmp}/saved.json
render tree -o {tmp}/tree.dot
render flat -o {tmp}/flat.dot
render modules -o {tmp}/modules.dot
render module encoder -o {tmp}/module.dot
goto 20
render frame -o {tmp}/frame.dot
render run -o {tmp}/run.html
diff {root}/tests/fixtures/tied_embeddings.json
render diff -o {tmp}/diff.dot
diff module encoder.layers.0 encoder.layers.1
info event 184
print 184
explain 182
explain encoder.norm.weight
print node nosuch
info frame 99
unflatten run
quit-if-complete done
"""

INNER_SCRIPT = "echo inner\ninfo program\n"

FIXTURE_COMMANDS = """\
info program
info signature
info module-call-graph
info facts
info modules
print graph
print module ""
print code
print readable module ""
"""

REAL_SCRIPT = """\
set on-error continue
info program
info signature
info module-call-graph
info facts
info modules
print graph
print node {node}
print module {module}
print code
print readable module {module}
step
stepi 3
backtrace
print frame
list
info events 0-5
lint
render tree -o {tmp}/real_tree.dot
"""


def run(exdb, args, script, tmp):
    path = os.path.join(tmp, "script.exdb")
    with open(path, "w") as f:
        f.write(script)
    p = subprocess.run([exdb, "-q", "--json"] + args + ["-x", path, "-batch"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    return p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def check_answers(root, text, name, seen, fails):
    """Validates every line; returns the number checked."""
    n = 0
    for i, line in enumerate(text.splitlines()):
        n += 1
        try:
            o = json.loads(line)
        except ValueError as e:
            fails.append("%s line %d: not JSON (%s): %s" % (name, i + 1, e, line[:100]))
            continue
        try:
            if "stopped" in o:
                validate(root, root["stopped"], o)
                continue
            key = entry_key(root, o.get("command", ""))
            if key not in root["commands"]:
                raise Invalid("no schema entry %r for %r" % (key, o.get("command")))
            validate(root, answer_schema(root, key, o.get("ok") is True), o)
            if o.get("ok") is True:
                seen.add(key)
        except Invalid as e:
            fails.append("%s line %d (%s): %s" % (name, i + 1, o.get("command"), e))
    return n


def table_keys(exdb, root, fails):
    """Schema entries the command table asks for: every command, and every
    subcommand word of the commands that take them."""
    out = subprocess.run([exdb, "-q", "--json", "-batch", "-ex", "help"],
                         stdout=subprocess.PIPE, cwd=ROOT).stdout.decode()
    cmds = json.loads(out.splitlines()[0]).get("commands") or []
    TABLE.update((c["name"], c.get("subcommands") or []) for c in cmds)
    out = subprocess.run([exdb, "-q", "--json", "-batch", "-ex", "help aliases"],
                         stdout=subprocess.PIPE, cwd=ROOT).stdout.decode()
    SHORT.update((a["name"], a["command"]) for a in
                 json.loads(out.splitlines()[0]).get("short_names") or [])
    if len(cmds) < 40:
        fails.append("help's JSON lists only %d commands" % len(cmds))
    missing = []
    for c in cmds:
        name = c["name"]
        subs = c.get("subcommands") or []
        keys = [k for k in root["commands"] if k == name or k.startswith(name + " ")]
        if not keys:
            missing.append(name)
        missing += ["%s %s" % (name, w) for w in subs
                    if "%s %s" % (name, w) not in root["commands"]]
    if missing:
        fails.append("commands without a schema entry: " + ", ".join(missing))
    # docs/json.md's answers table describes every answer: it names the
    # command, or another command whose schema entry is the same (one
    # answer, described once: "render flat" for every view of render)
    md = open(os.path.join(ROOT, "docs", "json.md")).read()
    md = re.sub(r"```.*?```", "", md, flags=re.S)
    named = re.findall(r"`([^`\n]+)`", md)

    def in_md(n):
        return any(t == n or t.startswith(n + " ") or t.startswith(n + "/") for t in named)

    undocumented = []
    for c in cmds:
        for n in [c["name"]] + ["%s %s" % (c["name"], w) for w in c.get("subcommands") or []]:
            entry = root["commands"].get(n)
            if not in_md(n) and not any(in_md(k) for k in root["commands"]
                                        if k != n and entry is not None
                                        and root["commands"][k] == entry):
                undocumented.append(n)
    if undocumented:
        fails.append("commands docs/json.md does not describe: " + ", ".join(undocumented))
    # help COMMAND names each of its subcommand words ("CMD WORD", "|WORD",
    # "[WORD": render's help is written by hand beside its rows, a view
    # added without it fails here; info watchpoints is info breakpoints')
    withsubs = [c for c in cmds if c.get("subcommands")]
    args = []
    for c in withsubs:
        args += ["-ex", "help " + c["name"]]
    out = subprocess.run([exdb, "-q", "--json", "-batch"] + args, stdout=subprocess.PIPE,
                         cwd=ROOT).stdout.decode().splitlines()
    for c, line in zip(withsubs, out):
        h = json.loads(line).get("command_help") or {}
        text = "%s\n%s" % (h.get("usage"), h.get("help"))
        unnamed = [w for w in c["subcommands"] if "%s %s" % (c["name"], w) != "info watchpoints"
                   and not re.search(r"(%s |\||\[)%s(?![\w-])" % (re.escape(c["name"]),
                                                                 re.escape(w)), text)]
        if unnamed:
            fails.append("help %s does not name: %s" % (c["name"], ", ".join(unnamed)))
    # the schema's list of render views is the table's
    render = [c for c in cmds if c["name"] == "render"]
    views = root["definitions"]["render_file"]["properties"]["view"]["enum"]
    if render and sorted(render[0]["subcommands"] or []) != sorted(views):
        fails.append("render_file's view enum %s is not render's views %s (help render)"
                     % (views, render[0]["subcommands"]))
    return len(cmds)


def real_program(real_dir):
    """A small real program: the smallest torchvision model.json there."""
    if not real_dir or not os.path.isdir(real_dir):
        return None
    best = None
    for f in os.listdir(real_dir):
        if f.endswith("__model.json"):
            p = os.path.join(real_dir, f)
            if best is None or os.path.getsize(p) < os.path.getsize(best):
                best = p
    return best


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    exdb = os.path.abspath(sys.argv[1])
    real_dir = sys.argv[2] if len(sys.argv) > 2 else os.path.join(
        os.path.dirname(ROOT), "shared", "real_pt2")
    with open(SCHEMA) as f:
        root = json.load(f)
    fails, seen = [], set()
    passed = 0
    if self_test(root, fails):
        passed += 1
    table_keys(exdb, root, fails)
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "inner.exdb"), "w") as f:
            f.write(INNER_SCRIPT)
        script = EXAMPLE_SCRIPT.format(tmp=tmp, root=ROOT)
        out, err = run(exdb, [EXAMPLE], script, tmp)
        if "ERROR: " in err:
            fails.append("example: sanitizer report:\n" + err[-2000:])
        n = check_answers(root, out, "example", seen, fails)
        answered = len([l for l in out.splitlines() if l.strip()])
        if answered < len([l for l in script.splitlines() if l.strip()]) - 3:
            fails.append("example: only %d answers for the script" % answered)
        for line in out.splitlines():
            o = json.loads(line) if line.startswith("{") else {}
            if "command" in o and "stopped" not in o and "output" not in o:
                fails.append("example: %r lost its text (\"output\")" % o["command"])
        # an answer that stops a script: the "stopped" line
        out2, _ = run(exdb, [EXAMPLE], "info program\nprint node nosuch\necho never\n", tmp)
        n += check_answers(root, out2, "example-stop", seen, fails)
        out4, _ = run(exdb, [EXAMPLE], "quit\necho never\n", tmp)
        n += check_answers(root, out4, "example-quit", seen, fails)
        if '"stopped"' not in out2:
            fails.append("example-stop: no \"stopped\" line")
        # every program among the fixtures (higher-order ops, symbolic
        # shapes, constants, dispatchers, programs that do not unflatten)
        fixtures = sorted(os.path.join(d, f) for d, _, fs in os.walk(os.path.join(ROOT, "tests",
                                                                                 "fixtures"))
                          for f in fs if f.endswith((".json", ".pt2")))
        # and torch's own programs of the conformance corpus: dtype, device
        # and memory_format arguments, preserved signatures, tied state
        corpus = os.path.join(ROOT, "tests", "conformance", "corpus", "scenarios")
        fixtures += sorted(os.path.join(corpus, d, "program.pt2") for d in os.listdir(corpus)
                           if os.path.exists(os.path.join(corpus, d, "program.pt2")))
        sweep = "set on-error continue\n" + "".join(
            "load %s\n%s" % (f, FIXTURE_COMMANDS) for f in fixtures)
        out5, err5 = run(exdb, [], sweep, tmp)
        if "ERROR: " in err5:
            fails.append("fixtures: sanitizer report:\n" + err5[-2000:])
        n += check_answers(root, out5, "fixtures", seen, fails)
        real = real_program(real_dir)
        if real:
            node, module = real_names(exdb, real)
            out3, err3 = run(exdb, [real],
                             REAL_SCRIPT.format(tmp=tmp, node=node, module=module), tmp)
            if "ERROR: " in err3:
                fails.append("real: sanitizer report:\n" + err3[-2000:])
            n += check_answers(root, out3, os.path.basename(real), seen, fails)
            if out3.count("\n") < 15:
                fails.append("real: only %d answers" % out3.count("\n"))
        else:
            print("json-schema: no real program in %s: the example only" % real_dir)
        # a command the scripts above do not answer with ok is looked for
        # in the golden tests: each golden using one runs again with --json
        # (a new subcommand's golden is its example here)
        for name, args, lines in goldens(real_dir):
            if any(entry_key(root, l.strip()) in set(root["commands"]) - seen for l in lines):
                outg, errg = run(exdb, args, "\n".join(lines) + "\n", tmp)
                if "ERROR: " in errg:
                    fails.append("golden %s: sanitizer report:\n%s" % (name, errg[-2000:]))
                n += check_answers(root, outg, "golden " + name, seen, fails)
    unseen = sorted(set(root["commands"]) - seen)
    if unseen:
        fails.append("schema entries no command answered with ok: " + ", ".join(unseen))
    passed += n - len([f for f in fails if " line " in f])
    for f in fails:
        print("FAIL " + f)
    print("json-schema: %d passed, %d failed" % (max(passed, 0), len(fails)))
    sys.exit(1 if fails else 0)


def goldens(real_dir):
    """The golden tests (tests/golden/NAME.cmd): name, exdb arguments (its
    "# args:" line; $REAL the real programs' directory) and command lines;
    those that need REAL_DIR only when it is there."""
    for path in sorted(os.listdir(os.path.join(ROOT, "tests", "golden"))):
        if not path.endswith(".cmd"):
            continue
        with open(os.path.join(ROOT, "tests", "golden", path)) as f:
            lines = f.read().splitlines()
        args = lines[0][len("# args:"):] if lines and lines[0].startswith("# args:") else ""
        if "$REAL" in args and not (real_dir and os.path.isdir(real_dir)):
            continue
        args = [a for a in shlex.split(args.replace("$REAL", real_dir or "")) if a != "--json"]
        yield path[:-4], args, [l for l in lines if l.strip() and not l.lstrip().startswith("#")]


def real_names(exdb, real):
    """A call_function node and a module with a graph of the real program."""
    out = subprocess.run([exdb, "-q", "--json", real, "-batch", "-ex", "info modules",
                          "-ex", "print graph"], stdout=subprocess.PIPE, cwd=ROOT).stdout
    lines = [json.loads(l) for l in out.decode().splitlines()]
    mods = [m["fqn"] for m in lines[-2].get("modules", []) if m.get("nodes") and m["fqn"]]
    nodes = [x["name"] for x in lines[-1].get("graph", {}).get("nodes", [])
             if x["op"] == "call_function"]
    return (nodes[0] if nodes else "output"), (mods[len(mods) // 2] if mods else '""')


def self_test(root, fails):
    """The validator must reject what the schema rules out (a check that
    cannot fail is a defect): a node without users, a stray field, a
    wrong type, an answer to a command with no entry."""
    good = {"command": "print node x", "ok": True, "output": "", "nodes": []}
    bad = [
        dict(good, nodes=[{"name": "x"}]),
        dict(good, extra_field=1),
        dict(good, ok="yes"),
        {"command": "print node x", "ok": True},
    ]
    try:
        validate(root, answer_schema(root, "print node", True), good)
    except Invalid as e:
        fails.append("self-test: a good answer fails: %s" % e)
        return False
    for b in bad:
        try:
            validate(root, answer_schema(root, "print node", True), b)
            fails.append("self-test: accepted %s" % json.dumps(b))
            return False
        except Invalid:
            pass
    if entry_key(root, "frobnicate now") in root["commands"]:
        fails.append("self-test: an unknown command has an entry")
        return False
    return True


if __name__ == "__main__":
    main()
