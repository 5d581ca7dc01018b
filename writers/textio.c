/*
 * Text input and output of the formats (textio.h).
 *
 * Output goes to "<path>.tmp.<pid>.<random>", created exclusively and never
 * through a symbolic link (O_EXCL | O_NOFOLLOW: a link planted at that name
 * by someone else makes collprof pick another name, never write the link's
 * target), and is renamed to path only by cp_out_commit, after every byte
 * was written and the file closed without error, so that a reader never
 * sees half a file.  rename() replaces a link at the final name itself,
 * not its target.  The first write error is
 * remembered (sticky) and reported, with the path, by cp_out_status and
 * cp_out_commit; writes after it do nothing.
 *
 * Input always goes through zlib's gzread, which passes plain files through
 * unchanged ("transparent" mode), so every parser reads both forms.  Lines
 * are assembled in a growing buffer: any length, NUL-terminated, '\n' and a
 * '\r' before it removed.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "textio.h"
#include "grow.h"

/* ------------------------------------------------------------------ output */

struct cp_out {
    char *path;     /* final name */
    char *tmp;      /* "<path>.tmp.<pid>.<random>" */
    bool gzip;
    FILE *fp;       /* plain */
    gzFile gz;      /* gzip */
    bool failed;    /* a write failed: err holds the message */
    cp_error err;
};

static char *dup_string(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

/* Remember the first failure of o (later ones are consequences). */
static void out_fail(cp_out *o, const char *what, const char *reason)
{
    if (o->failed)
        return;
    o->failed = true;
    cp_error_set(&o->err, "%s: %s: %s", o->path, what, reason);
}

/* The reason of a zlib stream error: errno for Z_ERRNO, else zlib's text. */
static const char *gz_reason(gzFile gz, int saved_errno)
{
    int zerr = Z_OK;
    const char *msg = gz ? gzerror(gz, &zerr) : NULL;
    if (!gz || zerr == Z_ERRNO || !msg || !*msg)
        return strerror(saved_errno ? saved_errno : EIO);
    return msg;
}

static void out_free(cp_out *o)
{
    free(o->path);
    free(o->tmp);
    free(o);
}

/* A name that others cannot easily guess or take first (they can only make
 * us try another: the file is created exclusively). */
static unsigned tmp_suffix(void)
{
    static _Atomic unsigned counter;
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    uint64_t x = (uint64_t)t.tv_nsec ^ ((uint64_t)t.tv_sec << 32) ^
                 ((uint64_t)getpid() << 16) ^ (uint64_t)atomic_fetch_add(&counter, 1) * 0x9e3779b97f4a7c15ull;
    x ^= x >> 31;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    return (unsigned)x;
}

int cp_create_temporary(const char *path, char *tmp, size_t size)
{
    int fd = -1;
    for (int attempt = 0; attempt < 64 && fd < 0; attempt++) {
        if ((size_t)snprintf(tmp, size, "%s.tmp.%ld.%08x", path, (long)getpid(), tmp_suffix()) >=
            size) {
            errno = ENAMETOOLONG;
            return -1;
        }
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    return fd;
}

cp_out *cp_out_open(const char *path, bool gzip, cp_error *err)
{
    cp_out *o = calloc(1, sizeof *o);
    if (!o) {
        cp_error_set(err, "%s: cannot open for writing: %s", path, strerror(errno));
        return NULL;
    }
    o->gzip = gzip;
    o->path = dup_string(path);
    size_t n = strlen(path) + 32;
    o->tmp = malloc(n);
    if (!o->path || !o->tmp) {
        cp_error_set(err, "%s: cannot open for writing: %s", path, strerror(ENOMEM));
        out_free(o);
        return NULL;
    }
    int fd = cp_create_temporary(path, o->tmp, n);
    if (fd < 0) {
        cp_error_set(err, "%s: cannot create temporary file %s: %s", path, o->tmp,
                     strerror(errno));
        out_free(o);
        return NULL;
    }
    if (gzip) {
        o->gz = gzdopen(fd, "wb");
        if (o->gz)
            gzbuffer(o->gz, 128 * 1024);
    } else {
        o->fp = fdopen(fd, "w");
    }
    if (!o->fp && !o->gz) {
        int e = errno ? errno : ENOMEM;
        close(fd);
        unlink(o->tmp);
        cp_error_set(err, "%s: cannot open for writing: %s", path, strerror(e));
        out_free(o);
        return NULL;
    }
    return o;
}

int cp_out_write(cp_out *o, const void *data, size_t len)
{
    if (!o || o->failed)
        return -1;
    const char *p = data;
    while (len > 0) {
        if (o->gzip) {
            /* gzwrite takes an unsigned and returns an int: write in chunks. */
            unsigned chunk = len > (1u << 30) ? (1u << 30) : (unsigned)len;
            errno = 0;
            int w = gzwrite(o->gz, p, chunk);
            if (w <= 0) {
                out_fail(o, "cannot write", gz_reason(o->gz, errno));
                return -1;
            }
            p += w;
            len -= (size_t)w;
        } else {
            size_t w = fwrite(p, 1, len, o->fp);
            if (w < len) {
                out_fail(o, "cannot write", strerror(errno ? errno : EIO));
                return -1;
            }
            len = 0;
        }
    }
    return 0;
}

int cp_out_str(cp_out *o, const char *s)
{
    return cp_out_write(o, s, strlen(s));
}

int cp_out_i64(cp_out *o, int64_t v)
{
    char buf[24];
    const char *s = cp_format_i64(buf, v);
    return cp_out_write(o, s, (size_t)(buf + sizeof buf - s));
}

int cp_out_printf(cp_out *o, const char *fmt, ...)
{
    if (!o || o->failed)
        return -1;
    char small[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) {
        out_fail(o, "cannot format output", strerror(errno ? errno : EINVAL));
        return -1;
    }
    if ((size_t)n < sizeof small)
        return cp_out_write(o, small, (size_t)n);

    char *big = malloc((size_t)n + 1);
    if (!big) {
        out_fail(o, "cannot write", strerror(ENOMEM));
        return -1;
    }
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    int rc = cp_out_write(o, big, (size_t)n);
    free(big);
    return rc;
}

const char *cp_out_path(const cp_out *o)
{
    return o ? o->path : "";
}

int cp_out_status(const cp_out *o, cp_error *err)
{
    if (!o)
        return cp_error_set(err, "output file could not be opened");
    if (o->failed)
        return cp_error_set(err, "%s", o->err.msg);
    return 0;
}

/* Close the stream, recording a failure of the final flush. */
static void out_close(cp_out *o)
{
    if (o->gzip && o->gz) {
        errno = 0;
        int rc = gzclose_w(o->gz);
        if (rc != Z_OK)
            out_fail(o, "cannot write",
                     rc == Z_ERRNO ? strerror(errno ? errno : EIO) : zError(rc));
        o->gz = NULL;
    } else if (o->fp) {
        errno = 0;
        if (fflush(o->fp) != 0)
            out_fail(o, "cannot write", strerror(errno ? errno : EIO));
        if (fclose(o->fp) != 0)
            out_fail(o, "cannot write", strerror(errno ? errno : EIO));
        o->fp = NULL;
    }
}

int cp_out_commit(cp_out *o, cp_error *err)
{
    if (!o)
        return cp_error_set(err, "output file could not be opened");
    out_close(o);
    if (!o->failed && rename(o->tmp, o->path) != 0) {
        char why[256];
        snprintf(why, sizeof why, "%s", strerror(errno));
        cp_error_set(&o->err, "%s: cannot rename %s into place: %s", o->path, o->tmp, why);
        o->failed = true;
    }
    int rc = 0;
    if (o->failed) {
        unlink(o->tmp);
        rc = cp_error_set(err, "%s", o->err.msg);
    }
    out_free(o);
    return rc;
}

void cp_out_abort(cp_out *o)
{
    if (!o)
        return;
    o->failed = true; /* nothing to report any more */
    out_close(o);
    unlink(o->tmp);
    out_free(o);
}

/* ------------------------------------------------------------------- input */

enum { IN_CHUNK = 64 * 1024 };

struct cp_in {
    char *name;
    gzFile gz;                  /* file input; NULL for memory input */
    unsigned char *chunk;       /* file input: read buffer of IN_CHUNK bytes */
    const unsigned char *data;  /* bytes not consumed yet: data[pos..end) */
    size_t pos, end;
    bool eof;
    bool failed;                /* sticky: err holds the message */
    cp_error err;
    char *line;                 /* current line, NUL-terminated */
    size_t linecap;
    long lineno;
};

static cp_in *in_new(const char *name)
{
    cp_in *in = calloc(1, sizeof *in);
    if (!in)
        return NULL;
    in->name = dup_string(name ? name : "<memory>");
    if (!in->name) {
        free(in);
        return NULL;
    }
    return in;
}

const char *cp_file_kind(mode_t mode)
{
    return S_ISREG(mode) ? NULL : S_ISDIR(mode) ? "a directory" : S_ISFIFO(mode) ? "a FIFO"
         : S_ISCHR(mode) ? "a character device" : S_ISBLK(mode) ? "a block device"
         : S_ISSOCK(mode) ? "a socket" : "not a regular file";
}

cp_in *cp_in_open(const char *path, cp_error *err)
{
    /* Non-blocking, so that a FIFO in place of a profile file is refused
     * at once instead of waiting for a writer; nothing but a regular file
     * is read. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        cp_error_set(err, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    const char *kind = fstat(fd, &st) == 0 ? cp_file_kind(st.st_mode) : NULL;
    if (kind) {
        close(fd);
        cp_error_set(err, "%s: not a regular file (%s): refused", path, kind);
        return NULL;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    cp_in *in = in_new(path);
    if (in)
        in->chunk = malloc(IN_CHUNK);
    if (!in || !in->chunk) {
        close(fd);
        cp_in_close(in);
        cp_error_set(err, "%s: cannot open: %s", path, strerror(ENOMEM));
        return NULL;
    }
    in->gz = gzdopen(fd, "rb");
    if (!in->gz) {
        close(fd);
        cp_in_close(in);
        cp_error_set(err, "%s: cannot open: %s", path, strerror(ENOMEM));
        return NULL;
    }
    gzbuffer(in->gz, 128 * 1024);
    in->data = in->chunk;
    return in;
}

cp_in *cp_in_open_mem(const void *data, size_t len, const char *name)
{
    cp_in *in = in_new(name);
    if (!in)
        return NULL;
    in->data = data;
    in->end = data ? len : 0;
    in->eof = true; /* nothing to read beyond data */
    return in;
}

/* Make data[pos..end) non-empty.  1: bytes available, 0: end of input,
 * -1: read error (in->err set). */
static int in_fill(cp_in *in)
{
    if (in->pos < in->end)
        return 1;
    if (in->failed)
        return -1;
    if (in->eof || !in->gz)
        return 0;
    errno = 0;
    int n = gzread(in->gz, in->chunk, IN_CHUNK);
    if (n < 0) {
        in->failed = true;
        cp_error_set(&in->err, "%s: read error: %s", in->name, gz_reason(in->gz, errno));
        return -1;
    }
    if (n == 0) {
        /* zlib reports a gzip stream cut short as a plain end of input with
         * an error status: that is a truncated file, not an end. */
        int zerr = Z_OK;
        const char *msg = gzerror(in->gz, &zerr);
        in->eof = true;
        if (zerr != Z_OK) {
            in->failed = true;
            cp_error_set(&in->err, "%s: read error: %s", in->name,
                         zerr == Z_ERRNO ? strerror(errno ? errno : EIO)
                                         : (msg && *msg ? msg : zError(zerr)));
            return -1;
        }
        return 0;
    }
    in->pos = 0;
    in->end = (size_t)n;
    return 1;
}

static int in_reserve_line(cp_in *in, size_t need)
{
    return cp_grow((void **)&in->line, &in->linecap, need, 1, 256);
}

int cp_in_getline(cp_in *in, char **line, size_t *len, cp_error *err)
{
    if (in->failed)
        return cp_error_set(err, "%s", in->err.msg);
    size_t n = 0;
    bool newline = false;
    while (!newline) {
        int r = in_fill(in);
        if (r < 0)
            return cp_error_set(err, "%s", in->err.msg);
        if (r == 0)
            break;
        const unsigned char *seg = in->data + in->pos;
        size_t avail = in->end - in->pos;
        const unsigned char *nl = memchr(seg, '\n', avail);
        size_t take = nl ? (size_t)(nl - seg) : avail;
        if (memchr(seg, '\0', take)) {
            in->failed = true;
            in->lineno++;
            cp_error_set(&in->err, "%s:%ld: NUL byte inside a line (not a text file?)",
                         in->name, in->lineno);
            return cp_error_set(err, "%s", in->err.msg);
        }
        if (take > SIZE_MAX - n - 1 || in_reserve_line(in, n + take + 1) != 0) {
            in->failed = true;
            cp_error_set(&in->err, "%s:%ld: line too long: %s", in->name, in->lineno + 1,
                         strerror(ENOMEM));
            return cp_error_set(err, "%s", in->err.msg);
        }
        memcpy(in->line + n, seg, take);
        n += take;
        in->pos += take;
        if (nl) {
            in->pos++;
            newline = true;
        }
    }
    if (!newline && n == 0)
        return 0; /* end of input */
    if (in_reserve_line(in, n + 1) != 0) { /* an empty first line */
        in->failed = true;
        cp_error_set(&in->err, "%s: %s", in->name, strerror(ENOMEM));
        return cp_error_set(err, "%s", in->err.msg);
    }
    if (n > 0 && in->line[n - 1] == '\r')
        n--;
    in->line[n] = '\0';
    in->lineno++;
    *line = in->line;
    *len = n;
    return 1;
}

long cp_in_lineno(const cp_in *in)
{
    return in->lineno;
}

const char *cp_in_name(const cp_in *in)
{
    return in->name;
}

int cp_in_slurp(cp_in *in, char **data, size_t *len, cp_error *err)
{
    size_t n = 0, cap = 0;
    char *buf = NULL;
    for (;;) {
        int r = in_fill(in);
        if (r < 0) {
            free(buf);
            return cp_error_set(err, "%s", in->err.msg);
        }
        if (r == 0)
            break;
        size_t avail = in->end - in->pos;
        if (avail > SIZE_MAX - n - 1) {
            free(buf);
            return cp_error_set(err, "%s: too large to read: %s", in->name, strerror(ENOMEM));
        }
        if (cp_grow((void **)&buf, &cap, n + avail + 1, 1, 64 * 1024)) {
            free(buf);
            return cp_error_set(err, "%s: too large to read: %s", in->name, strerror(ENOMEM));
        }
        memcpy(buf + n, in->data + in->pos, avail);
        n += avail;
        in->pos = in->end;
    }
    if (!buf) {
        buf = malloc(1);
        if (!buf)
            return cp_error_set(err, "%s: %s", in->name, strerror(ENOMEM));
    }
    buf[n] = '\0';
    *data = buf;
    *len = n;
    return 0;
}

void cp_in_close(cp_in *in)
{
    if (!in)
        return;
    if (in->gz)
        gzclose_r(in->gz);
    free(in->chunk);
    free(in->line);
    free(in->name);
    free(in);
}

char *cp_format_i64(char buf[24], int64_t v)
{
    char *q = buf + 24;
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    do {
        *--q = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        *--q = '-';
    return q;
}

size_t cp_utf8_len(const unsigned char *s, size_t n)
{
    unsigned char c = s[0];
    size_t len;
    uint32_t cp;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
        cp = c & 0x1Fu;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        cp = c & 0x0Fu;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        cp = c & 0x07u;
    } else {
        return 0;
    }
    if (n < len)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3Fu);
    }
    if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10FFFF ||
        (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return len;
}

int cp_in_parse_path(const char *path, int (*parse)(cp_in *, void *what, cp_error *), void *what,
                     cp_error *err)
{
    cp_in *in = cp_in_open(path, err);
    if (!in)
        return -1;
    int rc = parse(in, what, err);
    cp_in_close(in);
    return rc;
}

int cp_out_write_path(const char *path, bool gzip,
                      int (*write)(cp_out *, const void *what, cp_error *), const void *what,
                      cp_error *err)
{
    cp_out *out = cp_out_open(path, gzip, err);
    if (!out)
        return -1;
    if (write(out, what, err) != 0) {
        cp_out_abort(out);
        return -1;
    }
    return cp_out_commit(out, err);
}

typedef struct slurped {
    char **data;
    size_t *len;
} slurped;

static int slurp(cp_in *in, void *what, cp_error *err)
{
    slurped *s = what;
    return cp_in_slurp(in, s->data, s->len, err);
}

int cp_read_file(const char *path, char **data, size_t *len, cp_error *err)
{
    return cp_in_parse_path(path, slurp, &(slurped){data, len}, err);
}

int cp_file_fingerprint(const char *path, int64_t max_bytes, int64_t *bytes, int64_t *crc)
{
    *bytes = *crc = -1;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return -1;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        errno = EINVAL;
        return -1;
    }
    if ((int64_t)st.st_size > max_bytes) {
        close(fd);
        *bytes = (int64_t)st.st_size;
        return 0;
    }
    unsigned char *buf = malloc(1 << 16); /* not on the stack of a rank at finalize */
    if (!buf) {
        close(fd);
        errno = ENOMEM;
        return -1;
    }
    uLong c = crc32(0L, Z_NULL, 0);
    int64_t got = 0;
    ssize_t n;
    while ((n = read(fd, buf, 1 << 16)) > 0) {
        c = crc32(c, buf, (uInt)n);
        got += n;
    }
    int saved = errno;
    free(buf);
    close(fd);
    if (n < 0) {
        errno = saved;
        return -1;
    }
    *bytes = got;
    *crc = (int64_t)c;
    return 0;
}
