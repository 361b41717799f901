/* gvtext.c - the wheel's text layout for Graphviz (gvtext.h). Graphviz
 * sizes a label with its pango plugin, which needs cairo, pango, fontconfig
 * and installed fonts; the wheel carries none of those, and without a text
 * layout plugin Graphviz guesses widths from Times (or Arial) metrics, so
 * labels drawn in DejaVu Sans (viz/emit.c) overflowed their boxes. This
 * plugin measures with DejaVu Sans's own advance widths and line height, as
 * pango would with the font installed (gvtextlayout_pango.c's textlayout). */
#include "viz/gvtext.h"

#include <graphviz/gvplugin_textlayout.h>
#include <string.h>

/* scripts/gen_textwidths.py: 1/1000 em, ' ' to '~'. */
static const short regular[95] = {
    317, 400, 459, 837, 636, 950, 779, 274, 390, 390, 500, 837, 317, 360,  317, 336, 636, 636, 636,
    636, 636, 636, 636, 636, 636, 636, 336, 336, 837, 837, 837, 530, 1000, 684, 686, 698, 770, 631,
    575, 774, 751, 294, 294, 655, 557, 862, 748, 787, 603, 787, 694, 634,  610, 731, 684, 988, 685,
    610, 685, 390, 336, 390, 837, 500, 500, 612, 634, 549, 634, 615, 352,  634, 633, 277, 277, 579,
    277, 974, 633, 611, 634, 634, 411, 520, 392, 633, 591, 817, 591, 591,  524, 636, 336, 636, 837,
};
static const short bold_w[95] = {
    348,  456, 520, 837, 695, 1001, 872, 306,  457, 457, 522, 837, 379, 415,  379, 365,
    695,  695, 695, 695, 695, 695,  695, 695,  695, 695, 399, 399, 837, 837,  837, 580,
    1000, 773, 762, 733, 830, 683,  683, 820,  836, 372, 372, 774, 637, 995,  836, 850,
    732,  850, 770, 720, 682, 812,  773, 1103, 770, 724, 725, 457, 365, 457,  837, 500,
    500,  674, 715, 592, 715, 678,  435, 715,  711, 342, 342, 665, 342, 1041, 711, 687,
    715,  715, 493, 595, 478, 711,  651, 923,  645, 651, 582, 711, 365, 711,  837,
};

/* DejaVu Sans: ascent 0.928 em, descent 0.236 em. */
#define ASCENT 0.928
#define LINE   1.164

double vz_gvtext_width(const char *s, double pt, int bold) {
    const short *w = bold ? bold_w : regular;
    long em = 0;
    for (const unsigned char *p = (const unsigned char *)s; p && *p; p++) {
        if (*p >= 32 && *p < 127)
            em += w[*p - 32];
        else if ((*p & 0xC0) != 0x80) /* a character's first byte */
            em += 1000;
    }
    return (double)em * pt / 1000.0;
}

/* Graphviz's textlayout entry: span's size and offsets, no layout object. */
static boolean gvtext_layout(textspan_t *span, char **fontpath) {
    double pt = span->font->size;
    const char *name = span->font->name ? span->font->name : "";
    int bold = (span->font->flags & HTML_BF) || strstr(name, "Bold") || strstr(name, "bold");
    span->size.x = (int)(vz_gvtext_width(span->str, pt, bold) + 1);
    span->size.y = (int)(LINE * pt + 1);
    span->yoffset_layout = ASCENT * pt;
    span->yoffset_centerline = 0.2 * pt;
    span->layout = NULL;
    span->free_layout = NULL;
    if (fontpath)
        *fontpath = NULL;
    return TRUE;
}

static gvtextlayout_engine_t engine = {gvtext_layout};
static gvplugin_installed_t layouts[] = {{0, "textlayout", 0, &engine, NULL},
                                         {0, NULL, 0, NULL, NULL}};
static gvplugin_api_t apis[] = {{API_textlayout, layouts}, {(api_t)0, NULL}};
gvplugin_library_t gvplugin_exdb_text_LTX_library = {"exdb_text", apis};
