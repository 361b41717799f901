/* schema.h - the names of torch/_export/serde/schema.py's enums: ScalarType,
 * Layout, MemoryFormat (by their codes) and the InputSpec / OutputSpec kinds
 * (the tags of their unions). schema.c holds the tables. */
#ifndef EXDB_CORE_FORMAT_SCHEMA_H
#define EXDB_CORE_FORMAT_SCHEMA_H

/* InputSpec kinds, in the order of schema.py's InputSpec union. */
typedef enum {
    EXDB_IN_USER_INPUT,
    EXDB_IN_PARAMETER,
    EXDB_IN_BUFFER,
    EXDB_IN_TENSOR_CONSTANT,
    EXDB_IN_CUSTOM_OBJ,
    EXDB_IN_TOKEN,
    EXDB_IN_CONSTANT_INPUT,
} exdb_input_kind;

typedef enum {
    EXDB_OUT_USER_OUTPUT,
    EXDB_OUT_LOSS_OUTPUT,
    EXDB_OUT_BUFFER_MUTATION,
    EXDB_OUT_GRADIENT_TO_PARAMETER,
    EXDB_OUT_GRADIENT_TO_USER_INPUT,
    EXDB_OUT_USER_INPUT_MUTATION,
    EXDB_OUT_TOKEN,
    EXDB_OUT_PARAMETER_MUTATION,
} exdb_output_kind;

const char *exdb_input_kind_name(exdb_input_kind k);   /* "parameter", ... (JSON key) */
const char *exdb_output_kind_name(exdb_output_kind k); /* "user_output", ... */
/* The kind a union tag names ("buffer" -> EXDB_IN_BUFFER), or -1. */
int exdb_input_kind_of(const char *tag);
int exdb_output_kind_of(const char *tag);
/* Upper-case names as ExportGraphSignature prints them: USER_INPUT, ... */
const char *exdb_input_kind_upper(exdb_input_kind k);
const char *exdb_output_kind_upper(exdb_output_kind k);

/* torch dtype names: 7 -> "torch.float32"; abbreviations: 7 -> "f32". */
const char *exdb_dtype_name(int code);
const char *exdb_dtype_abbr(int code);
const char *exdb_layout_name(int code);
const char *exdb_memory_format_name(int code);

#endif
