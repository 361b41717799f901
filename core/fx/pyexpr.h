/* pyexpr.h - pieces of the Python text torch.fx writes for a node:
 * attribute paths (_format_target), the operators it writes as Python
 * operators, and a tensor's type annotation. */
#ifndef EXDB_CORE_FX_PYEXPR_H
#define EXDB_CORE_FX_PYEXPR_H

#include <stddef.h>

#include "core/fx/graph.h"
#include "core/base/strbuf.h"

/* str.isidentifier() of s[0..n) for the ASCII names FX targets hold (a
 * byte >= 0x80 counts as a letter). */
int exdb_fx_is_identifier(const char *s, size_t n);
/* _format_target(base, target): "self.layer1.0.conv" as
 * getattr(self.layer1, "0").conv. */
void exdb_fx_format_target(exdb_buf *b, const char *base, const char *target);
/* The "{} + {}" form FX writes an operator.* call_function target in:
 * magic_methods (inplace 0) or inplace_methods (1); NULL for other targets. */
const char *exdb_fx_operator_format(const exdb_node *n, int inplace);
/* _tensor_annotation: "f32[2, 3]", with the stride ("[3, 1]") and the
 * device ("cpu") when asked, each part coloured as colored=True does. */
void exdb_fx_tensor_annotation(exdb_buf *b, const exdb_tensor_meta *t, int stride, int device,
                               int colored);

#endif
