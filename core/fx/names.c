/* names.c - torch.fx.graph._Namespace: the names FX refuses to give a node
 * (_illegal_names) and create_name, which sanitises a candidate and makes
 * it unique with _N suffixes. A graph's namespace is its names and
 * base_count tables (exdb_graph_create_name). */
#include "core/fx/names.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Names FX refuses to give a node (graph.py _illegal_names): Python keywords,
 * everything in builtins.__dict__ (CPython 3.11 with site, as in a torch
 * process), and FX's custom builtins (inf, nan, NoneType, torch, device,
 * fx_pytree, pytree).
 *
 * "None" is deliberately absent: create_name refuses a candidate only when
 * `_illegal_names.get(candidate, obj) is not obj`, and obj is None for nodes.
 * _illegal_names["None"] starts as a keyword sentinel but is then overwritten
 * by builtins.__dict__["None"], which is None itself, so FX does name a node
 * "None". ("True"/"False" map to True/False and stay refused.)
 *
 * Python 3.13 added PythonFinalizationError and _IncompleteInputError to
 * builtins; they are not listed (3.11 is the reference interpreter). */
static const char *const reserved_names[] = {"ArithmeticError",
                                             "AssertionError",
                                             "AttributeError",
                                             "BaseException",
                                             "BaseExceptionGroup",
                                             "BlockingIOError",
                                             "BrokenPipeError",
                                             "BufferError",
                                             "BytesWarning",
                                             "ChildProcessError",
                                             "ConnectionAbortedError",
                                             "ConnectionError",
                                             "ConnectionRefusedError",
                                             "ConnectionResetError",
                                             "DeprecationWarning",
                                             "EOFError",
                                             "Ellipsis",
                                             "EncodingWarning",
                                             "EnvironmentError",
                                             "Exception",
                                             "ExceptionGroup",
                                             "False",
                                             "FileExistsError",
                                             "FileNotFoundError",
                                             "FloatingPointError",
                                             "FutureWarning",
                                             "GeneratorExit",
                                             "IOError",
                                             "ImportError",
                                             "ImportWarning",
                                             "IndentationError",
                                             "IndexError",
                                             "InterruptedError",
                                             "IsADirectoryError",
                                             "KeyError",
                                             "KeyboardInterrupt",
                                             "LookupError",
                                             "MemoryError",
                                             "ModuleNotFoundError",
                                             "NameError",
                                             "NoneType",
                                             "NotADirectoryError",
                                             "NotImplemented",
                                             "NotImplementedError",
                                             "OSError",
                                             "OverflowError",
                                             "PendingDeprecationWarning",
                                             "PermissionError",
                                             "ProcessLookupError",
                                             "RecursionError",
                                             "ReferenceError",
                                             "ResourceWarning",
                                             "RuntimeError",
                                             "RuntimeWarning",
                                             "StopAsyncIteration",
                                             "StopIteration",
                                             "SyntaxError",
                                             "SyntaxWarning",
                                             "SystemError",
                                             "SystemExit",
                                             "TabError",
                                             "TimeoutError",
                                             "True",
                                             "TypeError",
                                             "UnboundLocalError",
                                             "UnicodeDecodeError",
                                             "UnicodeEncodeError",
                                             "UnicodeError",
                                             "UnicodeTranslateError",
                                             "UnicodeWarning",
                                             "UserWarning",
                                             "ValueError",
                                             "Warning",
                                             "ZeroDivisionError",
                                             "__build_class__",
                                             "__debug__",
                                             "__doc__",
                                             "__import__",
                                             "__loader__",
                                             "__name__",
                                             "__package__",
                                             "__spec__",
                                             "abs",
                                             "aiter",
                                             "all",
                                             "and",
                                             "anext",
                                             "any",
                                             "as",
                                             "ascii",
                                             "assert",
                                             "async",
                                             "await",
                                             "bin",
                                             "bool",
                                             "break",
                                             "breakpoint",
                                             "bytearray",
                                             "bytes",
                                             "callable",
                                             "chr",
                                             "class",
                                             "classmethod",
                                             "compile",
                                             "complex",
                                             "continue",
                                             "copyright",
                                             "credits",
                                             "def",
                                             "del",
                                             "delattr",
                                             "device",
                                             "dict",
                                             "dir",
                                             "divmod",
                                             "elif",
                                             "else",
                                             "enumerate",
                                             "eval",
                                             "except",
                                             "exec",
                                             "exit",
                                             "filter",
                                             "finally",
                                             "float",
                                             "for",
                                             "format",
                                             "from",
                                             "frozenset",
                                             "fx_pytree",
                                             "getattr",
                                             "global",
                                             "globals",
                                             "hasattr",
                                             "hash",
                                             "help",
                                             "hex",
                                             "id",
                                             "if",
                                             "import",
                                             "in",
                                             "inf",
                                             "input",
                                             "int",
                                             "is",
                                             "isinstance",
                                             "issubclass",
                                             "iter",
                                             "lambda",
                                             "len",
                                             "license",
                                             "list",
                                             "locals",
                                             "map",
                                             "max",
                                             "memoryview",
                                             "min",
                                             "nan",
                                             "next",
                                             "nonlocal",
                                             "not",
                                             "object",
                                             "oct",
                                             "open",
                                             "or",
                                             "ord",
                                             "pass",
                                             "pow",
                                             "print",
                                             "property",
                                             "pytree",
                                             "quit",
                                             "raise",
                                             "range",
                                             "repr",
                                             "return",
                                             "reversed",
                                             "round",
                                             "set",
                                             "setattr",
                                             "slice",
                                             "sorted",
                                             "staticmethod",
                                             "str",
                                             "sum",
                                             "super",
                                             "torch",
                                             "try",
                                             "tuple",
                                             "type",
                                             "vars",
                                             "while",
                                             "with",
                                             "yield",
                                             "zip"};

int exdb_names_is_reserved(const char *s) {
    /* A sorted table: binary search needs no initialisation or locking. */
    size_t lo = 0, hi = sizeof reserved_names / sizeof *reserved_names;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = strcmp(s, reserved_names[mid]);
        if (c == 0)
            return 1;
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return 0;
}

/* A Bloom filter of one hash over reserved_names: bit (exdb_strmap_hash
 * of the name) mod 4096. create_name has its candidate's hash at hand
 * when it asks whether the candidate is reserved, and a clear bit answers
 * no without the binary search's ~8 strcmp calls (200,000 of them in an
 * unflatten run of synth_10k). Built once, for any thread. */
#define RESERVED_BITS 4096
static uint64_t reserved_filter[RESERVED_BITS / 64];
static pthread_once_t reserved_once = PTHREAD_ONCE_INIT;

static void reserved_filter_build(void) {
    for (size_t i = 0; i < sizeof reserved_names / sizeof *reserved_names; i++) {
        uint32_t b = exdb_strmap_hash(reserved_names[i]) % RESERVED_BITS;
        reserved_filter[b / 64] |= (uint64_t)1 << (b % 64);
    }
}

/* exdb_names_is_reserved(s) for s of exdb_strmap_hash h. */
static int is_reserved_hashed(const char *s, uint32_t h) {
    pthread_once(&reserved_once, reserved_filter_build);
    uint32_t b = h % RESERVED_BITS;
    return (reserved_filter[b / 64] >> (b % 64) & 1) && exdb_names_is_reserved(s);
}

static int is_ident_char(unsigned char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int is_digit(char c) {
    return c >= '0' && c <= '9';
}

/* FX's _name_regex, ^([a-zA-Z_][0-9a-zA-Z_]*?)(?:_(\d+))?$, as a test: the
 * candidate is used as is (no sanitising) when it matches. */
static int is_valid_name(const char *s, size_t n) {
    /* [0-9a-zA-Z_] by table: one load a character, no chain of compares */
    static const uint8_t ident[256] = {
        ['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1, ['7'] = 1,
        ['8'] = 1, ['9'] = 1, ['_'] = 1, ['a'] = 1, ['b'] = 1, ['c'] = 1, ['d'] = 1, ['e'] = 1,
        ['f'] = 1, ['g'] = 1, ['h'] = 1, ['i'] = 1, ['j'] = 1, ['k'] = 1, ['l'] = 1, ['m'] = 1,
        ['n'] = 1, ['o'] = 1, ['p'] = 1, ['q'] = 1, ['r'] = 1, ['s'] = 1, ['t'] = 1, ['u'] = 1,
        ['v'] = 1, ['w'] = 1, ['x'] = 1, ['y'] = 1, ['z'] = 1, ['A'] = 1, ['B'] = 1, ['C'] = 1,
        ['D'] = 1, ['E'] = 1, ['F'] = 1, ['G'] = 1, ['H'] = 1, ['I'] = 1, ['J'] = 1, ['K'] = 1,
        ['L'] = 1, ['M'] = 1, ['N'] = 1, ['O'] = 1, ['P'] = 1, ['Q'] = 1, ['R'] = 1, ['S'] = 1,
        ['T'] = 1, ['U'] = 1, ['V'] = 1, ['W'] = 1, ['X'] = 1, ['Y'] = 1, ['Z'] = 1};
    if (!n || is_digit(*s))
        return 0;
    size_t i = 0;
#ifdef __SSE2__
    /* sixteen characters a step: a letter (its byte | 0x20 in 'a'..'z'), a
     * digit or '_' (x <= k unsigned as min(x, k) == x) */
    for (; i + 16 <= n; i += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
        __m128i al = _mm_sub_epi8(_mm_or_si128(v, _mm_set1_epi8(0x20)), _mm_set1_epi8('a'));
        __m128i dg = _mm_sub_epi8(v, _mm_set1_epi8('0'));
        __m128i ok =
            _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(_mm_min_epu8(al, _mm_set1_epi8(25)), al),
                                      _mm_cmpeq_epi8(_mm_min_epu8(dg, _mm_set1_epi8(9)), dg)),
                         _mm_cmpeq_epi8(v, _mm_set1_epi8('_')));
        if (_mm_movemask_epi8(ok) != 0xFFFF)
            return 0;
    }
#endif
    for (; i < n; i++)
        if (!ident[(unsigned char)s[i]])
            return 0;
    return 1;
}

/* The groups of _name_regex on a valid name. The base is lazy but must keep
 * at least one character, so the suffix is the part after the LAST '_' when
 * that part is all digits and the '_' is not the first character
 * ("add_1" -> add/1, "_1" -> _1/none, "a_1_2" -> a_1/2). Returns 1 and sets
 * *base_len and *num when there is a suffix.
 *
 * Python's int() is unbounded; a suffix whose value needs more than 18
 * digits (leading zeros do not count) is treated as no suffix here. The name
 * itself is unaffected; only the _base_count entry differs from FX's. */
static int split_suffix(const char *s, size_t len, size_t *base_len, uint64_t *num) {
    /* the digits at the end, then the '_' before them (the last '_' when
     * all after it are digits), read from the end: no strrchr, no strlen */
    size_t j = len;
    while (j && is_digit(s[j - 1]))
        j--;
    if (j == len || j < 2 || s[j - 1] != '_')
        return 0;
    const char *us = s + j - 1, *d = us + 1;
    while (*d == '0' && d[1])
        d++;
    if (len - (size_t)(d - s) > 18)
        return 0;
    uint64_t v = 0;
    for (; *d; d++)
        v = v * 10 + (uint64_t)(*d - '0');
    *base_len = (size_t)(us - s);
    *num = v;
    return 1;
}

/* _Namespace.create_name(candidate, None), the newest upstream form
 * (torch/fx/graph.py; also torch/csrc/fx/graph.cpp NamespaceBase_create_name):
 *
 *   match = _name_regex.match(candidate)
 *   if match is None:
 *       candidate = _illegal_char_regex.sub("_", candidate)   # [^0-9a-zA-Z_]+
 *       if not candidate: candidate = "_unnamed"
 *       if candidate[0].isdigit(): candidate = f"_{candidate}"
 *       match = _name_regex.match(candidate)
 *   base, num = match.group(1, 2)
 *   if num is None or candidate in self._used_names:
 *       num = self._base_count.get(base, 0)
 *       if _illegal_names.get(candidate, obj) is not obj:
 *           num += 1; candidate = f"{base}_{num}"
 *   else:
 *       num = int(num)          # the candidate keeps its text: "a_01" stays
 *   while candidate in self._used_names:
 *       num += 1; candidate = f"{base}_{num}"
 *   self._used_names.add(candidate); self._base_count[base] = num
 *
 * The counter lookup uses `base`, as pytorch/pytorch#176515 (2026) does;
 * graph.py up to late 2025 (and graph.cpp) looked up `candidate`, which only
 * differs for a suffixed candidate that is already taken (e.g. "add_1" after
 * add, add_1, add_5: add_6 here, add_2 in those versions) and made that
 * case probe every existing name: quadratic when node_copy copies the same
 * names into a graph over and over. With `base` every call costs O(1)
 * probes in the usual patterns. */
const char *exdb_names_create(exdb_arena *a, exdb_strmap *names, exdb_strmap *base_count,
                              const char *candidate) {
    uint32_t h;
    void **slot;
    return exdb_names_create_slot(a, names, base_count, candidate, NULL, &h, &slot);
}

/* candidate (n bytes, not a valid name) made one into buf (n + 32 bytes):
 * a leading digit gets a '_', a run of other characters becomes one '_',
 * nothing left "_unnamed"; its length. */
static size_t sanitise(const char *candidate, size_t n, char *buf) {
    size_t w = 0;
    if (n && is_digit(candidate[0]))
        buf[w++] = '_';
    for (size_t i = 0; i < n;) {
        if (is_ident_char((unsigned char)candidate[i])) {
            buf[w++] = candidate[i++];
        } else {
            buf[w++] = '_'; /* a run of illegal characters -> one '_' */
            while (i < n && !is_ident_char((unsigned char)candidate[i]))
                i++;
        }
    }
    buf[w] = '\0';
    if (w == 0) {
        strcpy(buf, "_unnamed");
        w = 8;
    }
    return w;
}

/* The candidate's hash is taken once for its first probe of names, its put
 * and the caller (a node caches its name's hash); only a taken candidate
 * rehashes the next _N. */
const char *exdb_names_create_slot(exdb_arena *a, exdb_strmap *names, exdb_strmap *base_count,
                                   const char *candidate, const char *keep, uint32_t *hash,
                                   void ***name_slot) {
    size_t n = strlen(candidate);
    /* The sanitised candidate: at most one '_' more, or "_unnamed". Names
     * are short: both buffers live on the stack unless a name is long (a
     * malloc pair per name was ~5% of an unflatten run). */
    char sbuf[256], scand[256];
    char *buf = n + 32 <= sizeof sbuf ? sbuf : malloc(n + 32);
    if (!buf)
        return NULL;
    /* as_given: cand is candidate's text (no character changed, no counter) */
    int as_given = is_valid_name(candidate, n) != 0;
    size_t w = as_given ? n : sanitise(candidate, n, buf);
    if (as_given)
        memcpy(buf, candidate, n + 1);

    size_t base_len = w;
    uint64_t num = 0;
    int has_num = split_suffix(buf, w, &base_len, &num);
    const char *final = NULL;
    size_t cand_size = w + 24; /* the candidate, or base + "_" + a counter */
    char *cand = cand_size <= sizeof scand ? scand : malloc(cand_size);
    if (!cand) {
        if (buf != sbuf)
            free(buf);
        return NULL;
    }
    memcpy(cand, buf, w + 1);

    /* From here on buf holds only the base. */
    buf[base_len] = '\0';
    void **bc = NULL; /* base_count's slot for the base, once looked up */
    int bc_looked = 0;
    uint32_t h = exdb_strmap_hash_n(cand, w);
    /* the base's hash: the candidate's when it is the base (no suffix) */
    uint32_t hb = base_len == w ? h : exdb_strmap_hash_n(buf, base_len);
    int taken = exdb_strmap_find_hashed(names, cand, h) != NULL; /* cand's, as h */
    if (!has_num || taken) {
        bc = exdb_strmap_find_hashed(base_count, buf, hb);
        bc_looked = 1;
        num = bc ? (uint64_t)(uintptr_t)*bc : 0;
        if (is_reserved_hashed(cand, h)) { /* reserved names never end in _<digits> */
            as_given = 0;
            snprintf(cand, cand_size, "%s_%llu", buf, (unsigned long long)++num);
            h = exdb_strmap_hash(cand);
            taken = exdb_strmap_find_hashed(names, cand, h) != NULL;
        }
    }
    while (taken) {
        as_given = 0;
        snprintf(cand, cand_size, "%s_%llu", buf, (unsigned long long)++num);
        h = exdb_strmap_hash(cand);
        taken = exdb_strmap_find_hashed(names, cand, h) != NULL;
    }

    /* keep itself handed in as the candidate and kept as it is: no strcmp */
    final = keep && ((as_given && candidate == keep) || strcmp(cand, keep) == 0)
                ? keep
                : exdb_arena_strdup(a, cand);
    void **slot = final ? exdb_strmap_put_hashed(names, final, h, NULL) : NULL;
    /* putting into names leaves base_count's slots where they were */
    void **bslot = bc_looked ? bc : exdb_strmap_find_hashed(base_count, buf, hb);
    if (!bslot && slot) { /* a new base: the map keeps the key, so copy it (or
                             share the name's, when the name is the base) */
        const char *key = strcmp(final, buf) == 0 ? final : exdb_arena_strdup(a, buf);
        bslot = key ? exdb_strmap_put_hashed(base_count, key, hb, NULL) : NULL;
    }
    if (!slot || !bslot) {
        final = NULL;
    } else {
        EXDB_WILL_WRITE(a, *bslot);
        *bslot = (void *)(uintptr_t)num;
        *hash = h;
        *name_slot = slot;
    }
    if (cand != scand)
        free(cand);
    if (buf != sbuf)
        free(buf);
    return final;
}
