/* test_gvtext.c - viz/gvtext.c, the wheel's text layout: label widths from
 * DejaVu Sans's advance widths (scripts/gen_textwidths.py reads them from
 * the font), bold wider, any other character one em. */
#include <criterion/criterion.h>

#include "viz/gvtext.h"

Test(gvtext, ascii_widths_are_dejavu_sans) {
    /* at 1000 pt a width is the table's 1/1000 em: 'a' 612, 'W' 988, ' ' 317 */
    cr_assert_float_eq(vz_gvtext_width("a", 1000, 0), 612, 1e-9);
    cr_assert_float_eq(vz_gvtext_width("W", 1000, 0), 988, 1e-9);
    cr_assert_float_eq(vz_gvtext_width(" ", 1000, 0), 317, 1e-9);
    /* "Linear": L 557 i 277 n 633 e 615 a 612 r 411, at 10 pt */
    cr_assert_float_eq(vz_gvtext_width("Linear", 10, 0), 31.05, 1e-9);
    cr_assert_float_eq(vz_gvtext_width("", 10, 0), 0, 1e-9);
    cr_assert_float_eq(vz_gvtext_width(NULL, 10, 0), 0, 1e-9);
}

Test(gvtext, bold_is_wider) {
    cr_assert_float_eq(vz_gvtext_width("a", 1000, 1), 674, 1e-9);
    cr_assert_gt(vz_gvtext_width("LayerNorm, 1 op", 10, 1),
                 vz_gvtext_width("LayerNorm, 1 op", 10, 0));
}

Test(gvtext, other_characters_are_one_em) {
    /* U+2192 (3 bytes) and U+00D7 (2 bytes): one character, one em each */
    cr_assert_float_eq(vz_gvtext_width("\xe2\x86\x92", 10, 0), 10, 1e-9);
    cr_assert_float_eq(vz_gvtext_width("a\xc3\x97"
                                       "b",
                                       1000, 0),
                       612 + 1000 + 634, 1e-9);
    /* a tab or control character counts as one em, not nothing */
    cr_assert_float_eq(vz_gvtext_width("\t", 10, 0), 10, 1e-9);
}
