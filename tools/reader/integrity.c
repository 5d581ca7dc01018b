/*
 * What a profile lost, as cp_profile_load finds it (collprof/reader.h,
 * cp_profile.damaged): manifest.json says what a complete profile holds —
 * per file its size and CRC-32, per communicator and collective its calls
 * and blocks — and every file is held against it.  A file cut short,
 * emptied, changed, missing without a reason, or anything but a regular
 * file is named with what is wrong; so is a block the count files lack.
 * What is still readable is read: the subcommands show it and say (by
 * their exit status) that it is not the whole profile.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "manifest.h"
#include "reader_internal.h"
#include "textio.h"
#include "compact.h"
#include "file_names.h"

void cp_reader_damage(cp_profile *p, const char *name, const char *fmt, ...)
{
    char why[1200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    for (size_t i = 0; i < p->ndamaged; i++) /* a second reason joins the first */
        if (strcmp(p->damaged[i].key, name) == 0) {
            size_t a = strlen(p->damaged[i].value), b = strlen(why);
            char *joined = a + b < 4096 ? malloc(a + b + 3) : NULL;
            if (joined) {
                memcpy(joined, p->damaged[i].value, a);
                memcpy(joined + a, "; ", 2);
                memcpy(joined + a + 2, why, b + 1);
                free(p->damaged[i].value);
                p->damaged[i].value = joined;
            }
            return;
        }
    (void)cp_kv_add(&p->damaged, &p->ndamaged, name, why); /* no room: cannot be listed */
}

bool cp_reader_is_damaged(const cp_profile *p, const char *name)
{
    return cp_kv_get(p->damaged, p->ndamaged, name) != NULL;
}

int cp_reader_regular(cp_profile *p, const char *name)
{
    char path[sizeof p->dir + 300];
    snprintf(path, sizeof path, "%s/%s", p->dir, name);
    struct stat st;
    if (stat(path, &st) != 0)
        return errno == ENOENT ? 0 : -1;
    const char *kind = cp_file_kind(st.st_mode);
    if (kind) {
        cp_reader_damage(p, name, "not a regular file (%s): refused", kind);
        return -1;
    }
    return 1;
}

static bool listed_missing(const cp_manifest *m, const char *name)
{
    return cp_kv_get(m->missing, m->nmissing, name) != NULL;
}

/* Every file the manifest lists, against its size and CRC-32. */
static void check_listed(cp_profile *p)
{
    const cp_manifest *m = &p->manifest;
    for (size_t i = 0; i < m->nfiles; i++) {
        const char *name = m->files[i];
        if (!name || strcmp(name, CP_FILE_MANIFEST) == 0 || strchr(name, '/'))
            continue;
        int r = cp_reader_regular(p, name);
        if (r < 0)
            continue;
        if (r == 0) {
            if (!listed_missing(m, name))
                cp_reader_damage(p, name, "%s", CP_DAMAGE_ABSENT);
            continue;
        }
        int64_t want = cp_manifest_file_bytes(m, i), want_crc = cp_manifest_file_crc(m, i);
        if (want < 0)
            continue; /* an older manifest: nothing to hold it against */
        char path[sizeof p->dir + 300];
        snprintf(path, sizeof path, "%s/%s", p->dir, name);
        int64_t bytes, crc;
        if (cp_file_fingerprint(path, INT64_MAX, &bytes, &crc) != 0)
            cp_reader_damage(p, name, "cannot be read: %s", strerror(errno));
        else if (bytes == 0 && want > 0)
            cp_reader_damage(p, name, "emptied: 0 bytes, the run wrote %" PRId64, want);
        else if (bytes < want)
            cp_reader_damage(p, name, "cut short: %" PRId64 " bytes of the %" PRId64
                             " the run wrote", bytes, want);
        else if (bytes > want)
            cp_reader_damage(p, name, "changed: %" PRId64 " bytes, the run wrote %" PRId64,
                             bytes, want);
        else if (want_crc >= 0 && crc != want_crc)
            cp_reader_damage(p, name, "changed since the run wrote it (its CRC-32 differs)");
    }
}

/* Per communicator and collective, the blocks the manifest says the lead
 * wrote against those the count files hold. */
static void check_series(cp_profile *p)
{
    const cp_manifest *m = &p->manifest;
    for (size_t i = 0; i < m->ncomms; i++) {
        const cp_comm_info *c = &m->comms[i];
        for (size_t k = 0; k < c->nseries; k++) {
            const cp_series_info *s = &c->series[k];
            int64_t have[2] = {0, 0};
            for (size_t f = 0; f < p->nfiles; f++)
                for (size_t b = 0; b < p->files[f].nblocks; b++) {
                    const cp_block *blk = &p->files[f].blocks[b];
                    if (blk->comm_id == c->id && !strcasecmp(blk->collective, s->collective))
                        have[p->files[f].direction == CP_SEND ? 0 : 1]++;
                }
            for (int d = 0; d < 2; d++) {
                if (have[d] >= s->blocks[d])
                    continue;
                char name[96];
                cp_compact_file_name(name, sizeof name, d == 0 ? CP_SEND : CP_RECV, c->lead,
                                     false);
                char gz[100];
                snprintf(gz, sizeof gz, "%s.gz", name);
                if (listed_missing(m, name) || listed_missing(m, gz))
                    continue; /* the run said it could not write it ("missing") */
                char what[200];
                snprintf(what, sizeof what, "communicator %" PRId64 ", %s", c->id, s->collective);
                cp_reader_damage(p, what,
                                 "%" PRId64 " of its %" PRId64 " %s blocks are not in %s (lost "
                                 "with the file's end, or the file)",
                                 s->blocks[d] - have[d], s->blocks[d],
                                 d == 0 ? "send" : "receive", name);
            }
        }
    }
}

void cp_reader_check_files(cp_profile *p)
{
    if (p->has_manifest)
        check_listed(p);
}

void cp_reader_check_series(cp_profile *p)
{
    if (!p->has_manifest) {
        for (size_t f = 0; f < p->nfiles; f++)
            if (p->files[f].version >= 1) { /* collprof's files come with one */
                cp_reader_damage(p, CP_FILE_MANIFEST,
                                 "missing: the count files are collprof's, whose runs write "
                                 "one (communicator table, call paths, what the files hold)");
                break;
            }
        return;
    }
    check_series(p);
}

int cp_reader_refingerprint(const cp_profile *p, const char *name, cp_error *err)
{
    if (!p->has_manifest)
        return 0;
    char mpath[sizeof p->dir + 32], path[sizeof p->dir + 300];
    snprintf(mpath, sizeof mpath, "%s/" CP_FILE_MANIFEST, p->dir);
    snprintf(path, sizeof path, "%s/%s", p->dir, name);
    cp_manifest m;
    if (cp_manifest_parse_file(mpath, &m, err))
        return -1;
    int rc = 0;
    for (size_t i = 0; i < m.nfile_info && i < m.nfiles; i++) {
        if (strcmp(m.files[i], name) != 0 || m.file_bytes[i] < 0)
            continue;
        int64_t bytes, crc;
        if (cp_file_fingerprint(path, INT64_MAX, &bytes, &crc) != 0) {
            rc = cp_error_set(err, "%s: cannot be read: %s", path, strerror(errno));
            break;
        }
        m.file_bytes[i] = bytes;
        m.file_crc[i] = m.file_crc[i] >= 0 ? crc : -1;
        rc = cp_manifest_write_file(mpath, false, &m, err);
        break;
    }
    cp_manifest_free(&m);
    return rc;
}
