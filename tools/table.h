/*
 * Fixed-width text tables for the `collprof` subcommands: cells are added
 * row by row, column widths are those of the widest cell, numbers are
 * right-aligned, text left-aligned, columns separated by two spaces.
 */
#ifndef COLLPROF_TABLE_H
#define COLLPROF_TABLE_H

#include <stdbool.h>
#include <stdio.h>

typedef struct cli_table cli_table;

/* ncols columns; right[k]: column k is right-aligned. */
cli_table *cli_table_new(size_t ncols, const char *const *headers, const bool *right);
/* Append a cell to the current row (printf-style); a row is complete after
 * ncols cells.  Returns 0 or -1 (no memory). */
int cli_table_cell(cli_table *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cli_table_print(const cli_table *t, FILE *out);
void cli_table_free(cli_table *t);
/* The end of a table built while ok stayed true: print it to stdout when ok,
 * free it either way; 0, or -1 when !ok. */
int cli_table_done(cli_table *t, bool ok);

#endif
