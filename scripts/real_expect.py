#!/usr/bin/env python3
"""real_expect.py - expected structural facts of torch.export programs.

Usage:
    python3 scripts/real_expect.py FILE...

FILE is a bare program JSON (models/model.json of a .pt2, or
serialized_exported_program.json), a PT2 archive (zip with
<folder>/models/<name>.json; the first such member is used), or a legacy export
zip (serialized_exported_program.json).  Python 3 stdlib only.

For every FILE, in argument order, it prints exactly these 9 lines (no blank
lines between files), meant to be diffed against the same facts printed by
exdb:

    file <basename of FILE>
    schema <major>.<minor>           ("schema <n>" when schema_version is a plain int)
    nodes <len(graph.nodes)>
    inputs <len(graph.inputs)>
    outputs <len(graph.outputs)>
    input_kinds <kind>=<count> ...   (input_specs kinds, in first-appearance order)
    output_kinds <kind>=<count> ...  (output_specs kinds, in first-appearance order)
    module_call_graph <len(module_call_graph)>
    node_names_sha1 <hex>

Details:
  * A spec's kind is its union key (`parameter`, `buffer`, `user_input`,
    `tensor_constant`, `custom_obj`, `token`, `constant_input`; `user_output`,
    `buffer_mutation`, `loss_output`, ...).  Old files that write unions as an
    object with every alternative present take the one non-null key.
    With no specs the line is just `input_kinds` / `output_kinds` (no trailing
    space).
  * node_names_sha1 = SHA-1 of the UTF-8 text "\\n".join(names) (no trailing
    newline), one name per node in graph order: node["name"] (8.16+). When
    any node has no name (schema 8.14 and older) it is "-": the names are
    then FX's choice, which only a deserializer knows.
  * Exit status 1 if a file cannot be read or parsed (an "error ..." line is
    printed to stderr and the file's block is skipped), else 0.
"""
import hashlib
import json
import os
import sys
import zipfile


def union_key(u):
    """the variant name of a serialized union (single-key or all-keys form)."""
    if not isinstance(u, dict) or not u:
        return "?"
    if "$type" in u:
        return u["$type"]
    if len(u) == 1:
        return next(iter(u))
    for k, v in u.items():
        if v is not None:
            return k
    return "?"


def union_val(u):
    k = union_key(u)
    if isinstance(u, dict) and "$value" in u:
        return u["$value"]
    return u.get(k) if isinstance(u, dict) else None


def first_output_name(node):
    outs = node.get("outputs") or []
    if not outs:
        return ""
    k, v = union_key(outs[0]), union_val(outs[0])
    if k == "as_tensor" and isinstance(v, dict):
        return v.get("name") or ""
    if k in ("as_sym_int", "as_sym_float", "as_sym_bool") and isinstance(v, dict):
        return v.get("as_name") or ""
    if k in ("as_tensors", "as_optional_tensors") and isinstance(v, list) and v:
        e = v[0]
        if isinstance(e, dict) and "name" in e:
            return e.get("name") or ""
        if isinstance(e, dict):
            ev = union_val(e)
            if isinstance(ev, dict):
                return ev.get("name") or ""
    return ""


def load_program(path):
    with open(path, "rb") as f:
        head = f.read(4)
    if head[:2] != b"PK":
        with open(path, "rb") as f:
            return json.loads(f.read().decode("utf-8"))
    with zipfile.ZipFile(path) as z:
        names = z.namelist()
        for n in names:  # PT2 archive: <folder>/models/<model>.json
            parts = n.split("/")
            if len(parts) >= 2 and parts[-2] == "models" and parts[-1].endswith(".json"):
                return json.loads(z.read(n).decode("utf-8"))
        for n in names:  # legacy export zip
            if n.split("/")[-1] == "serialized_exported_program.json":
                return json.loads(z.read(n).decode("utf-8"))
    raise ValueError("no program JSON member in zip")


def kinds(specs):
    order, counts = [], {}
    for s in specs or []:
        k = union_key(s)
        if k not in counts:
            order.append(k)
            counts[k] = 0
        counts[k] += 1
    return "".join(" %s=%d" % (k, counts[k]) for k in order)


def facts(path, prog):
    gm = prog["graph_module"]
    g = gm["graph"]
    sig = gm.get("signature") or {}
    sv = prog.get("schema_version")
    if isinstance(sv, dict):
        schema = "%s.%s" % (sv.get("major"), sv.get("minor"))
    else:
        schema = str(sv)
    names = [n.get("name") for n in g.get("nodes") or []]
    if all(names):
        sha = hashlib.sha1("\n".join(names).encode("utf-8")).hexdigest()
    else:
        # Before schema 8.16 nodes carry no name: PyTorch's deserializer
        # derives it (FX naming), which plain JSON cannot tell.
        sha = "-"
    return [
        "file %s" % os.path.basename(path),
        "schema %s" % schema,
        "nodes %d" % len(g.get("nodes") or []),
        "inputs %d" % len(g.get("inputs") or []),
        "outputs %d" % len(g.get("outputs") or []),
        "input_kinds" + kinds(sig.get("input_specs")),
        "output_kinds" + kinds(sig.get("output_specs")),
        "module_call_graph %d" % len(gm.get("module_call_graph") or []),
        "node_names_sha1 %s" % sha,
    ]


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        sys.stderr.write(__doc__)
        return 0 if argv else 2
    status = 0
    for path in argv:
        try:
            lines = facts(path, load_program(path))
        except (OSError, ValueError, KeyError, TypeError, zipfile.BadZipFile) as e:
            sys.stderr.write("error %s: %s\n" % (path, e))
            status = 1
            continue
        sys.stdout.write("\n".join(lines) + "\n")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
