/*
 * cp_profile_load: read an output directory into the profile model.
 *
 * manifest.json (or manifest.json.gz) when present, then every file whose
 * name is a counts file name (cp_compact_parse_name), in a deterministic
 * order: send before receive, then by lead rank.  Blocks that do not name
 * their communicator (other tools' dialect) get synthetic ids.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "collprof/reader.h"
#include "reader_internal.h"
#include "compact.h"
#include "cpt.h"
#include "manifest.h"
#include "file_names.h"
#include "search.h"
#include "grow.h"

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int cmp_file(const void *a, const void *b)
{
    const cp_counts_file *x = a, *y = b;
    CP_ORDER_BY(x->direction, y->direction);
    CP_ORDER_BY(x->lead_rank, y->lead_rank);
    return strcmp(x->path, y->path);
}

typedef struct synth_key {
    int64_t lead, nranks;
} synth_key;

static int cmp_synth(const void *a, const void *b)
{
    const synth_key *x = a, *y = b;
    CP_ORDER_BY(x->lead, y->lead);
    CP_ORDER_BY(x->nranks, y->nranks);
    return 0;
}

/* Blocks without a communicator id (comm_id == -1: other tools' dialect) get
 * one id per distinct (lead rank of their file, number of ranks), numbered
 * in that order from one past the largest id named in the directory (from
 * 0 when no file names one).  Send and receive files of a lead share ids. */
static int assign_synthetic_ids(cp_profile *p, cp_error *err)
{
    size_t n = 0, k = 0;
    int64_t base = 0;
    for (size_t f = 0; f < p->nfiles; f++)
        for (size_t b = 0; b < p->files[f].nblocks; b++) {
            const cp_block *blk = &p->files[f].blocks[b];
            if (blk->comm_id < 0)
                n++;
            else if (blk->comm_id >= base)
                base = blk->comm_id + 1;
        }
    if (n == 0)
        return 0;
    synth_key *keys = malloc(n * sizeof *keys);
    if (!keys)
        return cp_error_set(err, "%s: out of memory", p->dir);
    for (size_t f = 0; f < p->nfiles; f++)
        for (size_t b = 0; b < p->files[f].nblocks; b++)
            if (p->files[f].blocks[b].comm_id < 0)
                keys[k++] = (synth_key){p->files[f].lead_rank, p->files[f].blocks[b].nranks};
    qsort(keys, n, sizeof *keys, cmp_synth);
    size_t uniq = 0;
    for (size_t i = 0; i < n; i++)
        if (uniq == 0 || cmp_synth(&keys[uniq - 1], &keys[i]) != 0)
            keys[uniq++] = keys[i];
    for (size_t f = 0; f < p->nfiles; f++)
        for (size_t b = 0; b < p->files[f].nblocks; b++) {
            cp_block *blk = &p->files[f].blocks[b];
            if (blk->comm_id >= 0)
                continue;
            synth_key key = {p->files[f].lead_rank, blk->nranks};
            synth_key *hit = bsearch(&key, keys, uniq, sizeof *keys, cmp_synth);
            blk->comm_id = base + (int64_t)(hit - keys);
        }
    free(keys);
    return 0;
}

static int join(char *dst, size_t size, const char *dir, const char *name, cp_error *err)
{
    int n = snprintf(dst, size, "%s/%s", dir, name);
    if (n < 0 || (size_t)n >= size)
        return cp_error_set(err, "%s/%s: path too long", dir, name);
    return 0;
}

/* Modification time of dir/name, or 0. */
static time_t mtime_of(const char *dir, const char *name, const char *inside)
{
    char path[8400];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s%s", dir, name, inside);
    return stat(path, &st) == 0 ? st.st_mtime : 0;
}

/* A run that wrote a profile removes the partial.rank<R> folders of
 * earlier runs; folders beside a profile that are newer than its manifest
 * are a later run that ended without MPI_Finalize: they are what is read. */
static bool partials_are_newer(const cp_profile *p, const char *manifest, char **names,
                               size_t nnames)
{
    time_t m = mtime_of(p->dir, manifest, "");
    for (size_t i = 0; i < nnames; i++)
        if (cp_reader_partial_rank(names[i]) >= 0 &&
            mtime_of(p->dir, names[i], "/" CP_FILE_MANIFEST) > m)
            return true;
    return false;
}

/* part: one rank's folder read for the merge of partial profiles (its
 * timings stay as the file has them: the merge places them). */
static int load_dir(const char *dir, cp_profile *p, bool part, cp_error *err);

static int load_part(const char *dir, cp_profile *p, cp_error *err)
{
    return load_dir(dir, p, true, err);
}

static int load_files(cp_profile *p, char **names, size_t nnames, cp_error *err)
{
    const char *manifest = NULL;
    for (size_t i = 0; i < nnames; i++)
        if (strcmp(names[i], CP_FILE_MANIFEST) == 0 ||
            (!manifest && strcmp(names[i], CP_FILE_MANIFEST ".gz") == 0))
            manifest = names[i];
    if (manifest && partials_are_newer(p, manifest, names, nnames))
        return cp_reader_load_partials(p, names, nnames, load_part, err);
    if (manifest && cp_reader_regular(p, manifest) > 0) {
        char path[sizeof p->dir + 64];
        if (join(path, sizeof path, p->dir, manifest, err) < 0)
            return -1;
        cp_error perr;
        if (cp_manifest_parse_file(path, &p->manifest, &perr) < 0) {
            cp_manifest_free(&p->manifest);
            cp_reader_damage(p, manifest, "%s", perr.msg);
        } else {
            p->has_manifest = true;
        }
    }

    /* Sizes and CRC-32s first: a file cut short is named as such, before
     * its parser says where it ends. */
    cp_reader_check_files(p);
    size_t ncounts = 0;
    for (size_t i = 0; i < nnames; i++) {
        int dir;
        int64_t lead;
        if (cp_compact_parse_name(names[i], &dir, &lead) == 0)
            ncounts++;
    }
    if (ncounts == 0 && !manifest)
        return cp_reader_load_partials(p, names, nnames, load_part, err);
    if (ncounts == 0)
        return 0;
    p->files = calloc(ncounts, sizeof *p->files);
    if (!p->files)
        return cp_error_set(err, "%s: out of memory", p->dir);
    for (size_t i = 0; i < nnames; i++) {
        int dir;
        int64_t lead;
        if (cp_compact_parse_name(names[i], &dir, &lead) != 0)
            continue;
        if (cp_reader_regular(p, names[i]) <= 0)
            continue; /* a FIFO, a directory: refused, never opened */
        cp_counts_file *f = &p->files[p->nfiles++];
        f->direction = dir;
        f->lead_rank = lead;
        if (join(f->path, sizeof f->path, p->dir, names[i], err) < 0)
            return -1;
        char path[sizeof f->path];
        memcpy(path, f->path, sizeof path);
        cp_error perr;
        if (cp_compact_salvage_file(path, f, &perr) < 0) {
            /* Named; its whole blocks before the damage are read, and the
             * other files. */
            cp_reader_damage(p, names[i], "%s%s", perr.msg,
                             f->nblocks ? " (the blocks before it are read)" : "");
            if (!f->nblocks) {
                cp_counts_file_free(f);
                p->nfiles--;
                continue;
            }
        }
        /* the parser leaves these to the caller; keep them whatever it did */
        f->direction = dir;
        f->lead_rank = lead;
        memcpy(f->path, path, sizeof path);
    }
    qsort(p->files, p->nfiles, sizeof *p->files, cmp_file);
    for (size_t i = 1; i < p->nfiles; i++)
        if (p->files[i].direction == p->files[i - 1].direction &&
            p->files[i].lead_rank == p->files[i - 1].lead_rank)
            return cp_error_set(err,
                                "%s: two %s counts files of lead rank %" PRId64
                                ": %s and %s (remove one)",
                                p->dir, p->files[i].direction == CP_SEND ? "send" : "receive",
                                p->files[i].lead_rank, p->files[i - 1].path, p->files[i].path);
    return assign_synthetic_ids(p, err);
}

/* timings.cpt, when the run wrote one; damaged, it is named and left out.
 * Merged partial profiles have theirs from the ranks' folders. */
static int load_timings(cp_profile *p, cp_error *err)
{
    (void)err;
    if (p->npartials)
        return 0;
    char path[sizeof p->dir + 32];
    snprintf(path, sizeof path, "%s/" CP_FILE_TIMINGS, p->dir);
    if (cp_reader_regular(p, CP_FILE_TIMINGS) <= 0)
        return 0;
    cp_error perr;
    if (cp_cpt_read(path, &p->timings, &perr)) {
        cp_cpt_file_free(&p->timings);
        memset(&p->timings, 0, sizeof p->timings);
        cp_reader_damage(p, CP_FILE_TIMINGS, "%s", perr.msg);
        return 0;
    }
    p->has_timings = true;
    return 0;
}

int cp_profile_load(const char *dir, cp_profile *p, cp_error *err)
{
    return load_dir(dir, p, false, err);
}

static int load_dir(const char *dir, cp_profile *p, bool part, cp_error *err)
{
    memset(p, 0, sizeof *p);
    size_t dlen = strlen(dir);
    while (dlen > 1 && dir[dlen - 1] == '/')
        dlen--;
    if (dlen >= sizeof p->dir)
        return cp_error_set(err, "%s: path too long", dir);
    memcpy(p->dir, dir, dlen);
    p->dir[dlen] = '\0';

    DIR *d = opendir(p->dir);
    if (!d)
        return cp_error_set(err, "%s: cannot open directory: %s", p->dir, strerror(errno));
    char **names = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    struct dirent *e;
    errno = 0;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        if (cp_grow((void **)&names, &cap, n + 1, sizeof *names, 16)) {
            rc = cp_error_set(err, "%s: out of memory", p->dir);
            break;
        }
        if (!(names[n] = strdup(e->d_name))) {
            rc = cp_error_set(err, "%s: out of memory", p->dir);
            break;
        }
        n++;
        errno = 0;
    }
    if (rc == 0 && errno != 0)
        rc = cp_error_set(err, "%s: cannot read directory: %s", p->dir, strerror(errno));
    closedir(d);
    if (rc == 0) {
        if (n)
            qsort(names, n, sizeof *names, cmp_str);
        rc = load_files(p, names, n, err);
    }
    if (rc == 0)
        rc = load_timings(p, err);
    if (rc == 0 && !part && (cp_reader_place_own_timings(p) || cp_reader_place_own_cube(p)))
        rc = cp_error_set(err, "%s: out of memory", p->dir);
    if (rc == 0 && p->npartials == 0)
        cp_reader_check_series(p);
    if (rc == 0 && p->has_timings && !p->has_manifest && p->npartials == 0) {
        /* Its communicators and call paths are the manifest's. */
        cp_cpt_file_free(&p->timings);
        memset(&p->timings, 0, sizeof p->timings);
        p->has_timings = false;
        cp_reader_damage(p, CP_FILE_TIMINGS, "not read: its communicators and call paths are "
                                          "named in " CP_FILE_MANIFEST ", which is missing or damaged");
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    if (rc < 0)
        cp_profile_free(p);
    if (rc == 0 && !p->cache && !(p->cache = cp_reader_cache_new()))
        rc = cp_error_set(err, "out of memory");
    return rc;
}
