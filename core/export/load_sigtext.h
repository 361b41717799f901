/* load_sigtext.h - the main graph's input specs and graph inputs read off
 * their text when torch wrote them in serialize.py's plain form (the
 * first pass only delimits them: program.c's lazy members), with no DOM
 * built; any other text is parsed and loaded as before. Private to
 * core/export. */
#ifndef EXDB_CORE_EXPORT_LOAD_SIGTEXT_H
#define EXDB_CORE_EXPORT_LOAD_SIGTEXT_H

#include <stddef.h>

#include "core/format/json.h"
#include "core/format/schema.h"

/* An input spec as its text gives it: the kind, the argument's name and
 * the target (NULL for a user input), pointers into the text with their
 * lengths; persistent as load_input_spec sets it. */
typedef struct exdb_sigtext_spec {
    exdb_input_kind kind;
    int persistent;
    const char *name, *target;
    size_t nlen, tlen;
} exdb_sigtext_spec;

/* Whether e, a lazy element the skim delimited (EXDB_JRAW with
 * EXDB_JRAW_ASCII), is exactly one of
 *   {"parameter": {"arg": {"name": "N"}, "parameter_name": "T"}}
 *   {"buffer": {"arg": {"name": "N"}, "buffer_name": "T", "persistent": B}}
 *   {"tensor_constant": {"arg": {"name": "N"}, "tensor_constant_name": "T"}}
 *   {"user_input": {"arg": {"as_tensor": {"name": "N"}}}}
 * (B true or false; N and T without a backslash, so their text is their
 * value: ASCII without control bytes, as the skim found), filling *s;
 * 0 for any other element or text. */
int exdb_load_sigtext_spec(const exdb_json *e, exdb_sigtext_spec *s);

/* Whether e (as above) is exactly {"as_tensor": {"name": "N"}}, N without
 * a backslash: *name and *n its text. */
int exdb_load_sigtext_input(const exdb_json *e, const char **name, size_t *n);

#endif
