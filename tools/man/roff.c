/* Text as roff, for the generated manual pages (roff.h). */
#include "roff.h"

#include <stdbool.h>

/* Text as roff: backslashes escaped, '-' as a minus sign (options), a line
 * that starts with '.' or '\'' guarded, one output line per input line. */
void roff_text(FILE *out, const char *s)
{
    bool bol = true;
    for (; *s; s++) {
        if (bol && (*s == '.' || *s == '\''))
            fputs("\\&", out);
        bol = *s == '\n';
        unsigned char c = (unsigned char)*s;
        if (*s == '\\') {
            fputs("\\e", out);
        } else if (*s == '-') {
            fputs("\\-", out);
        } else if (c >= 0xc0 && c < 0xf0 && (s[1] & 0xc0) == 0x80 &&
                   (c < 0xe0 || (s[2] & 0xc0) == 0x80)) {
            /* UTF-8 of two or three bytes: groff's escape for the code point */
            unsigned cp = c < 0xe0 ? (c & 0x1fu) << 6 | (s[1] & 0x3fu)
                                   : (c & 0x0fu) << 12 | (s[1] & 0x3fu) << 6 | (s[2] & 0x3fu);
            fprintf(out, "\\[u%04X]", cp);
            s += c < 0xe0 ? 1 : 2;
        } else {
            fputc(*s, out);
        }
    }
}

FILE *roff_page(const char *path, const char *name, const char *title, const char *from,
                const char *version, const char *what)
{
    FILE *out = fopen(path, "w");
    if (!out) {
        perror(path);
        return NULL;
    }
    fprintf(out, ".\\\" %s(1), made by tools/man/%s.\n", title, from);
    fprintf(out, ".TH %s 1 \"\" \"collprof %s\" \"User Commands\"\n", name, version);
    fprintf(out, ".SH NAME\n%s \\- %s\n", title, what);
    return out;
}
