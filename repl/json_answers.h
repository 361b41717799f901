/* json_answers.h - the structured data of the commands' JSON answers
 * (--json, set output json), built in one place so a node, a graph, the
 * module tree or the signature has the same shape in every answer that
 * holds one. docs/json.md describes each shape; docs/json-schema.json is
 * the machine-readable form tests/json_schema_check.py checks answers
 * against. Every builder returns a new cJSON item (NULL when out of
 * memory) for cmd_json_add. */
#ifndef EXDB_REPL_JSON_ANSWERS_H
#define EXDB_REPL_JSON_ANSWERS_H

#include "core/export/program.h"
#include "core/unflatten/unflatten.h"
#include "viz/render.h"

struct cJSON;
struct exdb_save_stats;

/* An argument tree (FX args/kwargs): None, bools, ints, floats, strings
 * and lists as JSON's own; a node {"node": NAME}; a tuple {"tuple": [...]},
 * a dict {"dict": {...}}, and dtype, layout, memory_format, device,
 * complex, operator and non-finite floats tagged the same way. */
struct cJSON *ja_arg(const exdb_arg *a);
/* A "val" (FakeTensor metadata): {"kind": "tensor", "dtype", "shape",
 * "stride", "device", ...}, symbolic scalars, tuples; null for none. */
struct cJSON *ja_val(const exdb_val *v);
/* One node: name, op, target, args, kwargs, users, value, meta, its line
 * as Node.format_node() prints it, and (p given and the node in p's flat
 * graph) its roles in the graph signature; signature is null otherwise. */
struct cJSON *ja_node(const exdb_program *p, const exdb_node *n);
/* A graph: {"nodes": [node...]} in graph order. */
struct cJSON *ja_graph(const exdb_program *p, const exdb_graph *g);

/* info program (and load): file, format, versions, counts. */
struct cJSON *ja_program(const exdb_program *p);
/* info signature: {"inputs": [spec...], "outputs": [spec...]}. */
struct cJSON *ja_signature(const exdb_program *p);
/* info module-call-graph: one entry per module_call_graph entry. */
struct cJSON *ja_call_graph(const exdb_program *p);
/* info facts: the "key value" lines of its text as an object. */
struct cJSON *ja_facts(const char *text);

/* The class nn_module_stack gives a module named_modules visits: "" for a
 * module that is not a plain untyped one, NULL when nothing names it. */
typedef const char *(*ja_class_fn)(void *ctx, uint32_t visit);
/* info modules' "tree": the root module with its "children", nested as
 * named_modules(remove_duplicate=False) visits them. */
struct cJSON *ja_module_tree(const exdb_unflatten *u, ja_class_fn cls, void *ctx);
/* The number of calls `info modules` shows for m (dispatcher: its call
 * modules; InterpreterModule: the call sites that resolve to it), or -1
 * for a module that has none (a plain module, the root, a GraphModule). */
int ja_module_calls(const exdb_unflatten *u, const exdb_umodule *m);
/* print module FQN: {"fqn", "kind", "type", "graphs": [{"fqn", "nodes"}]}
 * (a dispatcher: one graph per call); NULL when the text said there is no
 * such module or graph. */
struct cJSON *ja_module(const exdb_unflatten *u, const char *fqn);

/* show's "name: value" lines as {"name": value}: a whole number as a
 * number, anything else as the string show prints. */
struct cJSON *ja_settings(const char *text);
/* render: the written file and what it holds. */
struct cJSON *ja_render_file(const char *path, const char *view, const exdb_viz_stats *st);
/* save: the written file (path NULL for --dry-run) and its counts. */
struct cJSON *ja_saved_file(const char *path, const struct exdb_save_stats *st);

#endif
