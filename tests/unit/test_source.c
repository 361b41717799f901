/* test_source.c - source lines from stack traces (core/fx/stacktrace.c,
 * core/fx/sourcelines.c): torch's innermost frame, every frame, file
 * suffixes, FILE:LINE, the call site of each module of a node, grouping a
 * module's nodes by line, a module's calls, and substitute-path. */
#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>

#include "core/export/program.h"
#include "core/fx/sourcelines.h"
#include "core/fx/stacktrace.h"

static const char *const TRACE =
    "File \"/src/m.py\", line 27, in forward\n"
    "    x = self.blocks(x)\n"
    "  File \"/venv/torch/nn/modules/container.py\", line 253, in forward\n"
    "    input = module(input)\n"
    "  File \"/src/m.py\", line 13, in forward\n"
    "    h = self.fc(x)\n"
    "  File \"/venv/torch/nn/modules/linear.py\", line 134, in forward\n"
    "    return F.linear(input, self.weight, self.bias)\n";

static int eq(const char *s, uint32_t n, const char *want) {
    return strlen(want) == n && memcmp(s, want, n) == 0;
}

Test(source, innermost_is_torchs) {
    exdb_stack_frame f;
    cr_assert(exdb_stack_innermost(TRACE, &f));
    cr_assert(eq(f.file, f.file_len, "/venv/torch/nn/modules/linear.py"));
    cr_assert_eq(f.line, 134);
    cr_assert(eq(f.func, f.func_len, "forward"));
    cr_assert(eq(f.code, f.code_len, "return F.linear(input, self.weight, self.bias)"));
    /* the last line is never a candidate: torch iterates from len - 2 */
    cr_assert_not(exdb_stack_innermost("File \"a.py\", line 3, in f", &f));
    cr_assert_not(exdb_stack_innermost(NULL, &f));
    /* a greedy file: the last '", line ' wins */
    cr_assert(exdb_stack_innermost("File \"a\", line 1, in b.py\", line 9, in g\n  code", &f));
    cr_assert(eq(f.file, f.file_len, "a\", line 1, in b.py"));
    cr_assert_eq(f.line, 9);
    exdb_buf b;
    exdb_buf_init(&b);
    cr_assert(exdb_stack_summary(&b, TRACE));
    cr_assert_str_eq(exdb_buf_str(&b), "File: /venv/torch/nn/modules/linear.py:134 in forward, "
                                       "code: return F.linear(input, self.weight, self.bias)");
    exdb_buf_free(&b);
}

Test(source, frames_and_locations) {
    exdb_stack_frame fr[8];
    cr_assert_eq(exdb_stack_frames(TRACE, fr, 8), 4);
    cr_assert_eq(exdb_stack_frames(TRACE, NULL, 0), 4);
    cr_assert_eq(fr[1].line, 253);
    cr_assert(eq(fr[2].code, fr[2].code_len, "h = self.fc(x)"));
    cr_assert(exdb_stack_file_matches(&fr[0], "m.py", 4));
    cr_assert(exdb_stack_file_matches(&fr[0], "src/m.py", 8));
    cr_assert(exdb_stack_file_matches(&fr[0], "/src/m.py", 9));
    cr_assert_not(exdb_stack_file_matches(&fr[1], "iner.py", 7)); /* not a path component */
    size_t fl;
    uint32_t line;
    cr_assert_eq(exdb_stack_parse_location("m.py:13", &fl, &line), 0);
    cr_assert_eq(fl, 4);
    cr_assert_eq(line, 13);
    cr_assert_eq(exdb_stack_parse_location("m.py", &fl, &line), -1);
    cr_assert_eq(exdb_stack_parse_location(":13", &fl, &line), -1);
    cr_assert_eq(exdb_stack_parse_location("m.py:0", &fl, &line), -1);
    cr_assert_eq(exdb_stack_parse_location("m.py:1x", &fl, &line), -1);
    /* any frame: the model's line that calls a module owns its nodes */
    cr_assert(exdb_stack_at(TRACE, "m.py", 4, 13));
    cr_assert(exdb_stack_at(TRACE, "m.py", 4, 27));
    cr_assert(exdb_stack_at(TRACE, "linear.py", 9, 134));
    cr_assert_not(exdb_stack_at(TRACE, "m.py", 4, 134));
    cr_assert_not(exdb_stack_at(TRACE, "n.py", 4, 13));
}

Test(source, call_sites_walk_down_the_module_stack) {
    exdb_stack_frame fr[8];
    uint32_t n = exdb_stack_frames(TRACE, fr, 8);
    exdb_stack_entry st[] = {{"L__self__", "", "M", 0},
                             {"L__self__blocks", "blocks", "Sequential", 0},
                             {"L__self__blocks.0", "blocks.0", "Block", 0},
                             {"L__self__blocks.0.fc", "blocks.0.fc", "Linear", 0}};
    exdb_meta m = {0};
    m.stack = st;
    m.nstack = 4;
    int32_t sites[4];
    exdb_stack_call_sites(&m, fr, n, sites);
    cr_assert_eq(sites[0], -1); /* the root is called from nowhere */
    cr_assert_eq(sites[1], 0);  /* ".blocks(" */
    cr_assert_eq(sites[2], 1);  /* no ".0(": the frame below the parent's call */
    cr_assert_eq(sites[3], 2);  /* ".fc(" */
    /* no frames: no sites */
    exdb_stack_call_sites(&m, fr, 0, sites);
    cr_assert_eq(sites[3], -1);
}

Test(source, substitute_path) {
    const char *from[] = {"/tmp/a/", "/x"}, *to[] = {"here", "/y"};
    exdb_buf b;
    exdb_buf_init(&b);
    const char *p = "/tmp/a/m.py";
    cr_assert(exdb_stack_substitute(&b, p, strlen(p), from, to, 2));
    cr_assert_str_eq(exdb_buf_str(&b), "here/m.py");
    exdb_buf_reset(&b);
    p = "/tmp/ab/m.py"; /* FROM must end at a path component */
    cr_assert_not(exdb_stack_substitute(&b, p, strlen(p), from, to, 2));
    cr_assert_str_eq(exdb_buf_str(&b), "/tmp/ab/m.py");
    exdb_buf_reset(&b);
    cr_assert(exdb_stack_substitute(&b, "/x", 2, from, to, 2));
    cr_assert_str_eq(exdb_buf_str(&b), "/y");
    exdb_buf_free(&b);
}

/* tinynet.pt2 (tests/fixtures/source/gen.py): a Sequential of two Blocks,
 * a LayerNorm called twice. */
Test(source, lines_and_calls_of_a_real_export) {
    exdb_error err = {0};
    exdb_program *p = exdb_program_load("tests/fixtures/source/tinynet.pt2", NULL, &err);
    cr_assert(p, "%s", err.msg);
    exdb_source_lines l;
    cr_assert_eq(exdb_source_lines_group(p->graph, "blocks.0", &l), 0);
    cr_assert_eq(l.nnodes, 4);
    cr_assert_eq(l.ngroups, 3);
    cr_assert_eq(l.groups[0].frame.line, 13); /* h = self.fc(x): linear_1 inside fc */
    cr_assert_str_eq(l.groups[0].nodes[0]->name, "linear_1");
    cr_assert_eq(l.groups[1].frame.line, 14);
    cr_assert_eq(l.groups[1].nnodes, 2); /* relu, mul */
    cr_assert_eq(l.groups[2].frame.line, 15);
    exdb_source_lines_free(&l);
    cr_assert_eq(exdb_source_lines_group(p->graph, NULL, &l), 0);
    cr_assert_eq(l.nnodes, p->graph->count);
    cr_assert_eq(l.nuntraced, 12); /* 11 placeholders and the output */
    exdb_source_lines_free(&l);

    exdb_source_call *calls;
    cr_assert_eq(exdb_source_calls(p->graph, "norm", &calls), 2);
    cr_assert_str_eq(calls[0].first->name, "layer_norm");
    cr_assert_str_eq(calls[1].first->name, "layer_norm_1");
    cr_assert_eq(calls[1].call_idx, 1);
    cr_assert(calls[0].has_site && calls[1].has_site);
    cr_assert_eq(calls[0].site.line, 29);
    cr_assert_eq(calls[1].site.line, 31);
    free(calls);
    cr_assert_eq(exdb_source_calls(p->graph, "nosuch", &calls), 0);
    free(calls);

    const exdb_node *relu = exdb_graph_find(p->graph, "relu");
    exdb_stack_frame f;
    cr_assert(exdb_source_line_in(relu, NULL, &f));
    cr_assert_eq(f.line, 14);
    cr_assert(exdb_source_line_in(relu, "blocks", &f));
    cr_assert_eq(f.line, 253); /* blocks' code: the Sequential's loop */
    cr_assert_not(exdb_source_line_in(relu, "norm", &f));
    exdb_program_free(p);
}
