/* xmlsafe.h - text every view hands to Graphviz made XML-safe: XML 1.0
 * forbids the C0 controls but tab, newline and carriage return, and
 * U+FFFE/U+FFFF, anywhere in a document, escaped or not; Graphviz copies
 * names and labels into SVG (<title>, comments, xlink:title) as they are,
 * so one such character in a node name made the SVG unreadable by every
 * XML parser. */
#ifndef EXDB_VIZ_XMLSAFE_H
#define EXDB_VIZ_XMLSAFE_H

#include "core/base/strbuf.h"

/* s itself when it holds nothing XML forbids; else its copy in *b (reset
 * first) with each forbidden C0 control shown as its Control Pictures
 * symbol (U+000C as U+240C "␌") and U+FFFE/U+FFFF as U+FFFD. NULL stays
 * NULL; on out of memory the copy is cut short (b->oom). */
const char *vz_xml_safe(const char *s, exdb_buf *b);

/* Writes s with <, > and & escaped and what XML forbids replaced as above,
 * for HTML and XML text. */
void vz_xml_escape(FILE *f, const char *s);

#endif
