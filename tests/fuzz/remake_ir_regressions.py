#!/usr/bin/env python3
"""remake_ir_regressions.py - makes the three IR-entry regressions of
fuzz_cache (tests/fuzz/regressions/cache/ir_*.ir) again from the seeds
tests/fuzz/seeds.sh writes, after a change of the IR format
(core/export/cache.c IR_FORMAT) made the old ones unreadable: an entry of
another format is refused at its head, so its replay no longer reaches the
code it once broke (unit test cache_ir/fuzz_regression_entries_are_of_the_
formats_written_now says when).

    sh tests/fuzz/seeds.sh && python3 tests/fuzz/remake_ir_regressions.py

Each is its fixture's entry as exdb writes it with one forged edit, its
checksum (XXH3 of all before it, libxxhash) made right again, as the fuzzer
found it (tests/fuzz/regressions/README.md):
  ir_empty_range_of_no_records  in_spec_flat_tuple.json: the first meta's
                                extra keys the range [0, 0) of KVS, which
                                has no records
  ir_name_hash_forged           kwargs.pt2: the first node that keeps its
                                name's hash named "" (its name's first byte
                                0; its slot and hash as they were)
  ir_null_string_arg            arg_kinds.json: the device argument's string
                                EXDB_CACHE_NONE
The record layouts are core/export/cache_format.h's; check them there when
that file changes.
"""
import ctypes
import os
import struct
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SEEDS = os.path.join(ROOT, "build/fuzz/seeds/cache")
OUT = os.path.join(ROOT, "tests/fuzz/regressions/cache")

# cache_format.h: the sections' order, record sizes, fields' offsets
NODES, ARGS, METAS, KVS, STRS = 0, 1, 4, 6, 14
NODE_SIZE, ARG_SIZE, META_SIZE = 40, 24, 64
NODE_NAME, NODE_HASH, NODE_HASHED = 0, 28, 39
ARG_U = 8
META_EXTRA = 36
ARG_DEVICE = 12  # core/fx/graph.h exdb_arg_kind
NONE = 0xFFFFFFFF
HEAD_LENS = 8 + 8 + 32 + 6 * 8 + 3 * 8  # path_len, model_len, member_len

xxh = ctypes.CDLL("libxxhash.so.0")
xxh.XXH3_64bits.restype = ctypes.c_uint64
xxh.XXH3_64bits.argtypes = [ctypes.c_char_p, ctypes.c_size_t]


class Entry:
    def __init__(self, path):
        self.d = bytearray(open(path, "rb").read())
        if self.d[:8] != b"EXDBIR01":
            sys.exit("%s: not an IR entry" % path)
        head_size = struct.unpack_from("<I", self.d, 12)[0]
        lens = struct.unpack_from("<III", self.d, HEAD_LENS)
        self.at = (head_size + sum(lens) + 3 + 7) & ~7
        nsect = struct.unpack_from("<I", self.d, self.at)[0]
        self.sect = [struct.unpack_from("<QQ", self.d, self.at + 16 + 16 * i) for i in range(nsect)]

    def count(self, s):
        return self.sect[s][1]

    def rec(self, s, i, size):
        return self.at + self.sect[s][0] + i * size

    def first_hashed_node(self):
        for i in range(self.count(NODES)):
            n = self.rec(NODES, i, NODE_SIZE)
            if self.d[n + NODE_HASHED]:
                return n
        sys.exit("no node keeps its name's hash")

    def write(self, path):
        struct.pack_into("<Q", self.d, len(self.d) - 8, xxh.XXH3_64bits(bytes(self.d[:-8]), len(self.d) - 8))
        with open(path, "wb") as f:
            f.write(self.d)


def empty_range(e):
    if e.count(KVS) != 0 or e.count(METAS) == 0:
        sys.exit("in_spec_flat_tuple.json: extra keys now, or no meta")
    struct.pack_into("<II", e.d, e.rec(METAS, 0, META_SIZE) + META_EXTRA, 0, 0)


def name_emptied(e):
    name = struct.unpack_from("<I", e.d, e.first_hashed_node() + NODE_NAME)[0]
    e.d[e.at + e.sect[STRS][0] + name] = 0


def null_device(e):
    for i in range(e.count(ARGS)):
        a = e.rec(ARGS, i, ARG_SIZE)
        if e.d[a] == ARG_DEVICE:
            struct.pack_into("<Q", e.d, a + ARG_U, NONE)
            return
    sys.exit("arg_kinds.json: no device argument")


CASES = (
    ("in_spec_flat_tuple.json.ir", empty_range, "ir_empty_range_of_no_records.ir"),
    ("kwargs.pt2.ir", name_emptied, "ir_name_hash_forged.ir"),
    ("arg_kinds.json.ir", null_device, "ir_null_string_arg.ir"),
)

for seed, edit, name in CASES:
    path = os.path.join(SEEDS, seed)
    if not os.path.exists(path):
        sys.exit("%s: no seed (sh tests/fuzz/seeds.sh makes it)" % path)
    entry = Entry(path)
    edit(entry)
    entry.write(os.path.join(OUT, name))
    print("wrote", os.path.join("tests/fuzz/regressions/cache", name))
