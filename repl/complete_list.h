/* complete_list.h - the list of completions a second Tab shows, in natural
 * order (convolution_2 before convolution_10), as GNU readline lists them
 * for gdb. libedit's own listing (fn_display_match_list) sorts with
 * strcmp, so main.c prints the list itself through these. */
#ifndef EXDB_REPL_COMPLETE_LIST_H
#define EXDB_REPL_COMPLETE_LIST_H

#include <stddef.h>
#include <stdio.h>

/* <0, 0, >0 as a sorts before, with, after b: runs of digits compare as
 * numbers (shorter run of equal value first: "x_02" after "x_2"), the rest
 * byte by byte. */
int complete_list_cmp(const char *a, const char *b);

/* Sorts the n words w[0..n) with complete_list_cmp and prints them to out
 * in columns down then across, as readline does, in a screen `width`
 * characters wide (a column: the longest word and two spaces). */
void complete_list_show(FILE *out, char **w, size_t n, int width);

#endif
