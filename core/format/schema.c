/* schema.c - enum tables of the serialization schema (docs/pt2-format.md §6,
 * §7): dtype, layout and memory-format codes, signature kind names. */
#include "core/format/schema.h"

#include <stddef.h>
#include <string.h>

typedef struct {
    int code;
    const char *name, *abbr;
} dtype_row;

/* abbreviations as torch.fx.graph.dtype_abbrs */
static const dtype_row dtypes[] = {
    {1, "torch.uint8", "u8"},
    {2, "torch.int8", "i8"},
    {3, "torch.int16", "i16"},
    {4, "torch.int32", "i32"},
    {5, "torch.int64", "i64"},
    {6, "torch.float16", "f16"},
    {7, "torch.float32", "f32"},
    {8, "torch.float64", "f64"},
    {9, "torch.complex32", "c32"},
    {10, "torch.complex64", "c64"},
    {11, "torch.complex128", "c128"},
    {12, "torch.bool", "b8"},
    {13, "torch.bfloat16", "bf16"},
    {28, "torch.uint16", "u16"},
    {29, "torch.float8_e4m3fn", "f8e4m3fn"},
    {30, "torch.float8_e5m2", "f8e5m2"},
    {31, "torch.float8_e4m3fnuz", "f8e4m3fnuz"},
    {32, "torch.float8_e5m2fnuz", "f8e5m2fnuz"},
    {33, "torch.float8_e8m0fnu", "f8e8m0fnu"},
    {34, "torch.uint32", "u32"},
    {35, "torch.uint64", "u64"},
};

const char *exdb_dtype_name(int code) {
    for (size_t i = 0; i < sizeof dtypes / sizeof *dtypes; i++)
        if (dtypes[i].code == code)
            return dtypes[i].name;
    return "torch.unknown_dtype";
}

const char *exdb_dtype_abbr(int code) {
    for (size_t i = 0; i < sizeof dtypes / sizeof *dtypes; i++)
        if (dtypes[i].code == code)
            return dtypes[i].abbr;
    return "?";
}

const char *exdb_layout_name(int code) {
    static const char *const n[] = {"torch.unknown_layout", "torch.sparse_coo", "torch.sparse_csr",
                                    "torch.sparse_csc",     "torch.sparse_bsr", "torch.sparse_bsc",
                                    "torch._mkldnn",        "torch.strided"};
    return code >= 0 && code < 8 ? n[code] : "torch.unknown_layout";
}

const char *exdb_memory_format_name(int code) {
    static const char *const n[] = {"torch.unknown_memory_format", "torch.contiguous_format",
                                    "torch.channels_last", "torch.channels_last_3d",
                                    "torch.preserve_format"};
    return code >= 0 && code < 5 ? n[code] : "torch.unknown_memory_format";
}

/* The tags of the InputSpec and OutputSpec unions, by kind. */
static const char *const in_keys[] = {"user_input", "parameter", "buffer",        "tensor_constant",
                                      "custom_obj", "token",     "constant_input"};
static const char *const out_keys[] = {"user_output",
                                       "loss_output",
                                       "buffer_mutation",
                                       "gradient_to_parameter",
                                       "gradient_to_user_input",
                                       "user_input_mutation",
                                       "token",
                                       "parameter_mutation"};

const char *exdb_input_kind_name(exdb_input_kind k) {
    return (unsigned)k < 7 ? in_keys[k] : "?";
}

const char *exdb_output_kind_name(exdb_output_kind k) {
    return (unsigned)k < 8 ? out_keys[k] : "?";
}

int exdb_input_kind_of(const char *tag) {
    for (int k = 0; k < 7; k++) /* a DOM key: json.c's copy of the literal */
        if (tag == in_keys[k])
            return k;
    for (int k = 0; k < 7; k++)
        if (strcmp(tag, in_keys[k]) == 0)
            return k;
    return -1;
}

int exdb_output_kind_of(const char *tag) {
    for (int k = 0; k < 8; k++)
        if (strcmp(tag, out_keys[k]) == 0)
            return k;
    return -1;
}

const char *exdb_input_kind_upper(exdb_input_kind k) {
    static const char *const n[] = {"USER_INPUT", "PARAMETER", "BUFFER",        "CONSTANT_TENSOR",
                                    "CUSTOM_OBJ", "TOKEN",     "CONSTANT_INPUT"};
    return (unsigned)k < 7 ? n[k] : "?";
}

const char *exdb_output_kind_upper(exdb_output_kind k) {
    static const char *const n[] = {"USER_OUTPUT",
                                    "LOSS_OUTPUT",
                                    "BUFFER_MUTATION",
                                    "GRADIENT_TO_PARAMETER",
                                    "GRADIENT_TO_USER_INPUT",
                                    "USER_INPUT_MUTATION",
                                    "TOKEN",
                                    "PARAMETER_MUTATION"};
    return (unsigned)k < 8 ? n[k] : "?";
}
