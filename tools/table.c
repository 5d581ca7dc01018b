/*
 * Fixed-width text tables (see table.h).
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "table.h"
#include "grow.h"

struct cli_table {
    size_t ncols;
    bool *right;
    char **cells; /* headers first, then row by row */
    size_t n, cap;
};

cli_table *cli_table_new(size_t ncols, const char *const *headers, const bool *right)
{
    cli_table *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->ncols = ncols;
    t->right = calloc(ncols, sizeof *t->right);
    if (!t->right) {
        free(t);
        return NULL;
    }
    memcpy(t->right, right, ncols * sizeof *right);
    for (size_t k = 0; k < ncols; k++)
        if (cli_table_cell(t, "%s", headers[k]) < 0) {
            cli_table_free(t);
            return NULL;
        }
    return t;
}

int cli_table_cell(cli_table *t, const char *fmt, ...)
{
    if (cp_grow((void **)&t->cells, &t->cap, t->n + 1, sizeof *t->cells, 64))
        return -1;
    va_list ap;
    va_start(ap, fmt);
    int rc = vasprintf(&t->cells[t->n], fmt, ap);
    va_end(ap);
    if (rc < 0)
        return -1;
    t->n++;
    return 0;
}

void cli_table_print(const cli_table *t, FILE *out)
{
    size_t *w = calloc(t->ncols, sizeof *w);
    if (!w)
        return;
    for (size_t i = 0; i < t->n; i++) {
        size_t l = strlen(t->cells[i]);
        if (l > w[i % t->ncols])
            w[i % t->ncols] = l;
    }
    for (size_t i = 0; i < t->n; i++) {
        size_t k = i % t->ncols;
        bool last = k + 1 == t->ncols || i + 1 == t->n;
        if (k)
            fputs("  ", out);
        if (t->right[k])
            fprintf(out, "%*s", (int)w[k], t->cells[i]);
        else if (last)
            fputs(t->cells[i], out);
        else
            fprintf(out, "%-*s", (int)w[k], t->cells[i]);
        if (last)
            fputc('\n', out);
    }
    free(w);
}

void cli_table_free(cli_table *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->n; i++)
        free(t->cells[i]);
    free(t->cells);
    free(t->right);
    free(t);
}

int cli_table_done(cli_table *t, bool ok)
{
    if (ok)
        cli_table_print(t, stdout);
    cli_table_free(t);
    return ok ? 0 : -1;
}
