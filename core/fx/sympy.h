/* sympy.h - str() of a sympy expression given as the srepr() text
 * torch.export serializes for symbolic sizes ("Mul(Integer(2),
 * Symbol('s62', positive=True, integer=True))" -> "2*s62"), as FX prints
 * them in type annotations. */
#ifndef EXDB_CORE_FX_SYMPY_H
#define EXDB_CORE_FX_SYMPY_H

#include "core/base/strbuf.h"

/* Appends str(sympify(srepr)); text that is not an srepr goes as it is. */
void exdb_sympy_str(exdb_buf *b, const char *srepr);

#endif
