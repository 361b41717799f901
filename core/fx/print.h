/* print.h - text renderings of graphs, byte-identical to PyTorch's
 * (str(fx.Graph), Node.format_node, Graph.print_tabular, _format_arg). */
#ifndef EXDB_CORE_FX_PRINT_H
#define EXDB_CORE_FX_PRINT_H

#include "core/fx/graph.h"
#include "core/base/strbuf.h"

/* Python's repr(float): shortest round-trip digits, "1e-05", "inf", "nan". */
void exdb_py_float(double d, char out[32]);

/* Node.format_node(): "%add : [num_users=1] = call_function[...](args = ..., kwargs = {})" */
void exdb_format_node(exdb_buf *b, const exdb_node *n);
/* str(torch.fx.Graph): "graph():" then each node's line indented 4 spaces; no final newline. */
void exdb_print_graph(exdb_buf *b, const exdb_graph *g);
/* Graph.print_tabular() (tabulate's "simple" format). */
void exdb_print_tabular(exdb_buf *b, const exdb_graph *g);
/* _format_arg(arg): how FX shows an argument tree. */
void exdb_format_arg(exdb_buf *b, const exdb_arg *a);
/* Python repr() of an argument tree, nodes by bare name (output node args). */
void exdb_repr_arg(exdb_buf *b, const exdb_arg *a);
/* "f32[1, 3, 224, 224]", "Sym(s0)", "(f32[2], f32[2])", "" when unknown. */
void exdb_format_val(exdb_buf *b, const exdb_val *v);
/* A SymInt as FX prints it: its sympy text, or the integer. */
void exdb_format_sym(exdb_buf *b, const exdb_sym *s);

#endif
