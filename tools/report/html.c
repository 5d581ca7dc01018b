/*
 * HTML output of `collprof report`: escaping, number formatting, and the
 * page around the sections (inline style and script: the file must open
 * anywhere without fetching anything).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ranges.h"
#include "report.h"

void report_textn(FILE *f, const char *s, size_t max)
{
    for (size_t i = 0; i < max && s[i]; i++) {
        unsigned char c = (unsigned char)s[i];
        switch (c) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default:
            /* Control characters are not allowed in HTML text; manifest
             * strings (an MPI version string) may hold tabs and newlines. */
            fputc(c < 0x20 || c == 0x7f ? ' ' : c, f);
        }
    }
}

void report_text(FILE *f, const char *s)
{
    report_textn(f, s, SIZE_MAX);
}

void report_printf(FILE *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
}

void report_id(FILE *f, const char *s)
{
    for (; *s; s++) {
        char c = *s;
        bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '-' || c == '_';
        fputc(keep ? c : '_', f);
    }
}

void report_human_bytes(char *buf, size_t size, int64_t bytes)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double v = (double)bytes;
    size_t u = 0;
    while (v >= 1024 && u + 1 < sizeof unit / sizeof *unit) {
        v /= 1024;
        u++;
    }
    if (u == 0)
        snprintf(buf, size, "%" PRId64 " B", bytes);
    else if (v == (double)(int64_t)v) /* round axis steps: "8 KiB", not "8.00 KiB" */
        snprintf(buf, size, "%.0f %s", v, unit[u]);
    else
        snprintf(buf, size, v < 10 ? "%.2f %s" : v < 100 ? "%.1f %s" : "%.0f %s", v, unit[u]);
}

void report_human_count(char *buf, size_t size, int64_t v)
{
    static const char *const suffix[] = {"", "k", "M", "G", "T", "P", "E"};
    if (v < 10000) {
        snprintf(buf, size, "%" PRId64, v);
        return;
    }
    double d = (double)v;
    size_t s = 0;
    while (d >= 1000 && s + 1 < sizeof suffix / sizeof *suffix) {
        d /= 1000;
        s++;
    }
    snprintf(buf, size, d < 100 ? "%.1f%s" : "%.0f%s", d, suffix[s]);
}

void report_human_seconds(char *buf, size_t size, double s)
{
    static const struct {
        double scale;
        const char *unit;
    } u[] = {{1, "s"}, {1e-3, "ms"}, {1e-6, "\u00b5s"}, {1e-9, "ns"}};
    size_t i = 0;
    while (i + 1 < sizeof u / sizeof *u && s < u[i].scale * 0.9995)
        i++;
    if (s >= 999.5)
        snprintf(buf, size, "%.0f s", s);
    else
        snprintf(buf, size, "%.3g %s", s / u[i].scale, u[i].unit);
}

void report_range(char *buf, size_t size, int64_t lo, int64_t hi)
{
    if (lo == hi)
        snprintf(buf, size, "%" PRId64, lo);
    else
        snprintf(buf, size, "%" PRId64 "-%" PRId64, lo, hi);
}

char *report_ranges_text(const cp_ranges *r, size_t max)
{
    char *s = cp_ranges_to_string(r);
    if (s && strlen(s) > max) {
        size_t keep = max;
        while (keep > 0 && s[keep] != ',')
            keep--;
        strcpy(s + keep, keep ? ",..." : "...");
    }
    return s;
}

/* Viridis in 9 steps for counts (small: dark, large: light), and a light
 * grey that no count uses for zero, so that a zero cell never looks like a
 * small count. */
static const char style[] =
    "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:#222;"
    "margin:0 auto;max-width:1200px;padding:0 16px 40px}\n"
    "h1{font-size:22px;margin:18px 0 4px}h2{font-size:19px;border-bottom:1px solid #ccc;"
    "padding-bottom:3px;margin-top:30px}h3{font-size:16px;margin:22px 0 6px}"
    "h4{font-size:15px;margin:16px 0 4px}\n"
    "nav a{margin-right:14px}a{color:#1f5fa8}\n"
    "table{border-collapse:collapse;margin:6px 0;display:block;max-width:100%;overflow-x:auto}"
    "td,th{padding:2px 9px;border-bottom:1px solid #e4e4e4;"
    "text-align:left;vertical-align:top}th{background:#f4f4f4}td.n,th.n{text-align:right;"
    "font-variant-numeric:tabular-nums}div.wide{overflow-x:auto}\n"
    "dl.run{display:grid;grid-template-columns:max-content auto;gap:1px 14px;margin:8px 0}"
    "dl.run dt{color:#555}dl.run dd{margin:0}\n"
    "figure{margin:10px 0 22px;display:inline-block;vertical-align:top;margin-right:24px;"
    "max-width:100%}figure>svg{max-width:100%;height:auto}"
    "figcaption{max-width:760px;font-size:13px;color:#333}"
    "p.info{font-size:12px;color:#555;min-height:1.4em;margin:2px 0;font-family:monospace}\n"
    "p.note{font-size:13px;color:#444;max-width:900px}\n"
    "svg text{font-size:10px;fill:#333}svg text.t{font-size:11px;fill:#222}\n"
    "svg.hm .z{fill:#ececec}svg.hm .c0{fill:#440154}svg.hm .c1{fill:#472d7b}"
    "svg.hm .c2{fill:#3b528b}svg.hm .c3{fill:#2c728e}svg.hm .c4{fill:#21918c}"
    "svg.hm .c5{fill:#28ae80}svg.hm .c6{fill:#5ec962}svg.hm .c7{fill:#addc30}"
    "svg.hm .c8{fill:#fde725}svg.hm svg.grid rect:hover{stroke:#e3342f;stroke-width:.25}"
    "svg.hm svg.fine rect{stroke:#fff;stroke-width:.03}\n"
    "svg.bars .s{fill:" REPORT_BAR_S_FILL "}svg.bars .r{fill:" REPORT_BAR_R_FILL "}"
    "svg.bars g.b:hover rect{opacity:.7}"
    "svg .ax{stroke:#888;stroke-width:1}\n"
    "footer{margin-top:40px;font-size:12px;color:#777}\n";

/* Hovering a cell or a bar repeats its <title> under the figure: titles
 * appear only after a delay, and cannot be copied. */
static const char script[] =
    "document.addEventListener('mouseover',function(e){\n"
    "  var t=e.target;if(!t||!t.closest)return;\n"
    "  var g=t.closest('[data-count],[data-ranks]');if(!g)return;\n"
    "  var f=g.closest('figure');var i=f&&f.querySelector('p.info');\n"
    "  var ti=g.querySelector('title');if(i&&ti)i.textContent=ti.textContent;\n"
    "});\n";

void report_page_begin(FILE *f, const char *title)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>",
          f);
    report_text(f, title);
    fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n", style);
}

void report_page_end(FILE *f)
{
    fprintf(f, "<script>\n%s</script>\n</body>\n</html>\n", script);
}
