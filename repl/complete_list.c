/* complete_list.c - the completions listed in natural order (see
 * complete_list.h). */
#include <stdlib.h>
#include <string.h>

#include "complete_list.h"

static int is_digit(char c) {
    return c >= '0' && c <= '9';
}

/* Compares the digit runs at *pa and *pb as numbers and moves past them. */
static int cmp_number(const char **pa, const char **pb) {
    const char *a = *pa, *b = *pb;
    while (*a == '0')
        a++;
    while (*b == '0')
        b++;
    size_t na = 0, nb = 0;
    while (is_digit(a[na]))
        na++;
    while (is_digit(b[nb]))
        nb++;
    int c = na < nb ? -1 : na > nb ? 1 : strncmp(a, b, na);
    if (!c) { /* equal values: fewer leading zeros first */
        size_t za = (size_t)(a - *pa), zb = (size_t)(b - *pb);
        c = za < zb ? -1 : za > zb;
    }
    *pa = a + na;
    *pb = b + nb;
    return c;
}

/* strverscmp-like, without its fractional rule for leading zeros. */
int complete_list_cmp(const char *a, const char *b) {
    while (*a && *b) {
        if (is_digit(*a) && is_digit(*b)) {
            int c = cmp_number(&a, &b);
            if (c)
                return c;
            continue;
        }
        if (*a != *b)
            return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
        a++;
        b++;
    }
    return (unsigned char)*a - (unsigned char)*b;
}

static int cmp_words(const void *x, const void *y) {
    return complete_list_cmp(*(char *const *)x, *(char *const *)y);
}

void complete_list_show(FILE *out, char **w, size_t n, int width) {
    qsort(w, n, sizeof *w, cmp_words);
    size_t maxlen = 0;
    for (size_t i = 0; i < n; i++)
        if (strlen(w[i]) > maxlen)
            maxlen = strlen(w[i]);
    size_t colw = maxlen + 2; /* the word, the append character, a space */
    size_t cols = width > 0 ? (size_t)width / colw : 1;
    if (!cols)
        cols = 1;
    size_t lines = (n + cols - 1) / cols;
    for (size_t l = 0; l < lines; l++) {
        for (size_t c = 0; c < cols; c++) {
            size_t i = l + c * lines;
            if (i >= n)
                break;
            if (c + 1 == cols || i + lines >= n)
                fputs(w[i], out); /* the last of its line */
            else
                fprintf(out, "%-*s", (int)colw, w[i]);
        }
        fputc('\n', out);
    }
}
