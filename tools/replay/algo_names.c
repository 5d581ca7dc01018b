/* MPICH's algorithm names from a control variable's description (see
 * tuning.h for the text's form and why it needs reading). */
#include "tuning.h"

#include <ctype.h>
#include <stdbool.h>
#include <string.h>
#include <strings.h>

/* The last words of MPICH's description lines that a name is glued to. */
static const char *const glue_words[] = {"algorithms", "algorithm", "tree", "phase",
                                         "receives", "allgather"};
#define NGLUE (sizeof glue_words / sizeof glue_words[0])

typedef struct item {
    const char *tok;           /* the word before " - ", glued or not */
    size_t toklen;
    const char *own, *own_end; /* the item's own line, after " - " */
    const char *cand[NGLUE];   /* where the name may start inside tok */
    int ncand;
} item;

static bool word_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* Length of the first '_'-separated part of a name of len bytes. */
static size_t first_part(const char *name, size_t len)
{
    const char *u = memchr(name, '_', len);
    return u ? (size_t)(u - name) : len;
}

/* Is w (n bytes) a whole word of [s, e), ignoring case? */
static bool has_word(const char *s, const char *e, const char *w, size_t n)
{
    for (const char *p = s; p + n <= e; p++)
        if ((p == s || !isalnum((unsigned char)p[-1])) && strncasecmp(p, w, n) == 0 &&
            (p + n == e || !isalnum((unsigned char)p[n])))
            return true;
    return false;
}

/* Does the item's own line name every '_'-part of the name? */
static bool own_line_names(const item *it, const char *name, size_t len)
{
    const char *p = name, *end = name + len;
    while (p < end) {
        size_t n = first_part(p, (size_t)(end - p));
        if (!has_word(it->own, it->own_end, p, n))
            return false;
        p += n + 1;
    }
    return true;
}

/* How many items have a candidate whose first part is f (n bytes). */
static int sharing(const item *v, int nitems, const char *f, size_t n)
{
    int count = 0;
    for (int i = 0; i < nitems; i++)
        for (int c = 0; c < v[i].ncand; c++) {
            size_t len = v[i].toklen - (size_t)(v[i].cand[c] - v[i].tok);
            if (first_part(v[i].cand[c], len) == n && strncmp(v[i].cand[c], f, n) == 0) {
                count++;
                break;
            }
        }
    return count;
}

static int score(const item *v, int nitems, const item *it, const char *name)
{
    size_t len = it->toklen - (size_t)(name - it->tok);
    size_t f = first_part(name, len);
    int siblings = f < len ? sharing(v, nitems, name, f) - 1 : 0;
    return siblings * 2 + own_line_names(it, name, len);
}

/* The items of the text: each " - " with the word before it. */
static int find_items(const char *desc, item *v, int max)
{
    int n = 0;
    for (const char *p = strstr(desc, " - "); p; p = strstr(p + 3, " - ")) {
        const char *e = p;
        while (e > desc && e[-1] == ' ')
            e--;
        const char *s = e;
        while (s > desc && word_char(s[-1]))
            s--;
        if (s == e || n == max)
            return -1;
        if (n > 0)
            v[n - 1].own_end = s;
        v[n] = (item){.tok = s, .toklen = (size_t)(e - s), .own = p + 3};
        v[n].own_end = p + 3 + strlen(p + 3);
        n++;
    }
    return n;
}

static void find_candidates(const char *desc, item *it)
{
    char before = it->tok > desc ? it->tok[-1] : ' ';
    if (before != ' ' && before != '-') { /* after ')' or the like: nothing glued */
        it->cand[it->ncand++] = it->tok;
        return;
    }
    for (size_t g = 0; g < NGLUE; g++) {
        size_t n = strlen(glue_words[g]);
        if (it->toklen > n && strncasecmp(it->tok, glue_words[g], n) == 0)
            it->cand[it->ncand++] = it->tok + n;
    }
}

static bool valid_name(const char *s, size_t n)
{
    if (n == 0 || n >= REPLAY_ALGO_NAME || !islower((unsigned char)s[0]))
        return false;
    for (size_t i = 0; i < n; i++)
        if (!islower((unsigned char)s[i]) && !isdigit((unsigned char)s[i]) && s[i] != '_')
            return false;
    return true;
}

int replay_mpich_algo_names(const char *desc, char names[][REPLAY_ALGO_NAME], int max)
{
    item v[REPLAY_ALGO_MAX];
    int n = find_items(desc, v, max < REPLAY_ALGO_MAX ? max : REPLAY_ALGO_MAX);
    if (n <= 0)
        return -1;
    for (int i = 0; i < n; i++) {
        find_candidates(desc, &v[i]);
        if (v[i].ncand == 0)
            return -1;
    }
    for (int i = 0; i < n; i++) {
        const char *best = NULL;
        int top = -1;
        bool tie = false;
        for (int c = 0; c < v[i].ncand; c++) {
            int s = score(v, n, &v[i], v[i].cand[c]);
            tie = s == top ? true : s > top ? false : tie;
            if (s > top) {
                top = s;
                best = v[i].cand[c];
            }
        }
        size_t len = v[i].toklen - (size_t)(best - v[i].tok);
        if (tie || !valid_name(best, len))
            return -1;
        memcpy(names[i], best, len);
        names[i][len] = '\0';
        for (int j = 0; j < i; j++)
            if (strcmp(names[j], names[i]) == 0)
                return -1;
    }
    return strcmp(names[0], "auto") == 0 ? n : -1;
}
