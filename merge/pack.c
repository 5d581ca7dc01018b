#include "pack.h"

#include <stdlib.h>
#include <string.h>

void cp_get_short(cp_rbuf *b, void *out, size_t len)
{
    if (len == 0) /* out may be NULL: an empty array */
        return;
    if (b->bad || b->len - b->off < len) {
        b->bad = true;
        memset(out, 0, len);
        return;
    }
    memcpy(out, b->p + b->off, len);
    b->off += len;
}

bool cp_rbuf_has(const cp_rbuf *b, uint64_t n, size_t size)
{
    return !b->bad && size && n <= (b->len - b->off) / size;
}

void cp_put_str(cp_wbuf *b, const char *s)
{
    uint32_t n = (uint32_t)strlen(s);
    cp_put_u32(b, n);
    cp_put(b, s, n);
}

void cp_get_str(cp_rbuf *b, char *out, size_t cap)
{
    uint32_t n = cp_get_u32(b);
    if (n >= cap || !cp_rbuf_has(b, n, 1)) {
        b->bad = true;
        out[0] = '\0';
        return;
    }
    cp_get(b, out, n);
    out[n] = '\0';
}
