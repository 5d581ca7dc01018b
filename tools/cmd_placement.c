/*
 * collprof placement DIR --nodes N: where the ranks should live so that the
 * fewest bytes cross between nodes - the rank graph from the recorded
 * matrices, the launchers' layouts and a partition, every byte count exact
 * (tools/placement/), and the layout written for the launchers.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "help_texts.h"
#include "placement.h"
#include "ranges.h"
#include "table.h"
#include "file_names.h"

static const char *u128(cp_u128 v, char *buf)
{
    return cp_u128_str(v, buf, 48);
}

/* "12.5%" of the graph's bytes; "-" when the graph moved none. */
static const char *share(cp_u128 part, cp_u128 all, char *buf, size_t size)
{
    if (all == 0)
        snprintf(buf, size, "-");
    else
        snprintf(buf, size, "%.1f%%", 100.0 * (double)part / (double)all);
    return buf;
}

/* The nodes' names: --hosts, else the run's own hosts when it ran on as
 * many; NULL entries when neither (the files then cannot be written). */
typedef struct names {
    char **v;
    int64_t n;
    const char *from; /* "--hosts", "the run's own hosts", NULL */
} names;

static int parse_hosts(const cli_command *self, const char *s, int64_t nnodes, names *out)
{
    out->v = calloc((size_t)nnodes, sizeof *out->v);
    if (!out->v)
        return -1;
    const char *p = s;
    for (int64_t k = 0; k < nnodes; k++) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == 0)
            return cli_usage_error(self, "--hosts: name %" PRId64 " of %" PRId64 " is empty in '%s'",
                                   k + 1, nnodes, s);
        if (!(out->v[k] = strndup(p, len)))
            return -1;
        out->n++;
        if (!e) {
            if (k + 1 != nnodes)
                return cli_usage_error(self, "--hosts names %" PRId64 " nodes, --nodes %" PRId64,
                                       k + 1, nnodes);
            break;
        }
        p = e + 1;
        if (k + 1 == nnodes)
            return cli_usage_error(self, "--hosts names more than the %" PRId64 " nodes of --nodes",
                                   nnodes);
    }
    out->from = "--hosts";
    return 0;
}

static void names_free(names *n)
{
    for (int64_t k = 0; n->v && k < n->n; k++)
        free(n->v[k]);
    free(n->v);
}

/* ------------------------------------------------------------ the files */

typedef struct file_ctx {
    const cp_layout *l;
    const names *nm;
} file_ctx;

static int write_hostfile(FILE *f, void *vctx, cp_error *err)
{
    const file_ctx *c = vctx;
    for (int64_t r = 0; r < c->l->nranks; r++)
        if (fprintf(f, "%s\n", c->nm->v[c->l->node[r]]) < 0)
            return cp_error_set(err, "write failed");
    return 0;
}

/* Open MPI's rankfile: "rank R=host slot=S", S counting the ranks placed
 * on that host before R. */
static int write_rankfile(FILE *f, void *vctx, cp_error *err)
{
    const file_ctx *c = vctx;
    int64_t *slot = calloc((size_t)c->l->nnodes, sizeof *slot);
    if (!slot)
        return cp_error_set(err, "out of memory");
    int rc = 0;
    for (int64_t r = 0; r < c->l->nranks && rc == 0; r++) {
        int64_t q = c->l->node[r];
        if (fprintf(f, "rank %" PRId64 "=%s slot=%" PRId64 "\n", r, c->nm->v[q], slot[q]++) < 0)
            rc = cp_error_set(err, "write failed");
    }
    free(slot);
    return rc;
}

/* ------------------------------------------------------------- printing */

static const char *layout_label(const cp_placement *pl, int i, char *buf, size_t size)
{
    switch (i) {
    case 0:
        snprintf(buf, size, "the run's own (%" PRId64 " host%s)", pl->own_nhosts,
                 pl->own_nhosts == 1 ? "" : "s");
        break;
    case 1:
        snprintf(buf, size, "block (%" PRId64 " consecutive ranks per node)", pl->cap);
        break;
    case 2:
        snprintf(buf, size, "round-robin (rank i on node i mod %" PRId64 ")", pl->nnodes);
        break;
    default:
        snprintf(buf, size, "proposal (%s)", pl->proposal_by);
    }
    return buf;
}

static const cp_placed *layout_of(const cp_placement *pl, int i)
{
    return i == 0 ? &pl->own : i == 1 ? &pl->block : i == 2 ? &pl->round_robin : &pl->proposal;
}

static void print_saving(const cp_placement *pl)
{
    char a[48], b[48], c[48];
    const cp_placed *base[2] = {&pl->block, &pl->round_robin};
    const char *name[2] = {"the block layout", "round-robin"};
    bool any = false;
    printf("saving:");
    for (int i = 0; i < 2; i++)
        if (pl->proposal.cut < base[i]->cut) {
            printf("%s %s bytes fewer between nodes than %s (%s of its %s)", any ? ";" : "",
                   u128(base[i]->cut - pl->proposal.cut, a), name[i],
                   share(base[i]->cut - pl->proposal.cut, base[i]->cut, b, sizeof b),
                   u128(base[i]->cut, c));
            any = true;
        }
    if (pl->own.present && pl->proposal.cut < pl->own.cut) {
        printf("%s %s fewer than the run's own layout", any ? ";" : "",
               u128(pl->own.cut - pl->proposal.cut, a));
        any = true;
    }
    if (!any)
        printf(" none: no layout found crosses fewer bytes between nodes than the %s",
               pl->block.cut <= pl->round_robin.cut ? "block layout" : "round-robin layout");
    printf("\n");
}

static int print_text(const cp_placement *pl, const char *dir)
{
    char a[48], b[48], label[160];
    const cp_rank_graph *g = &pl->g;
    printf("%s: %" PRId64 " ranks on %" PRId64 " nodes of at most %" PRId64 " ranks\n", dir,
           g->nranks, pl->nnodes, pl->cap);
    printf("rank graph: %zu pairs of ranks exchange %s bytes (the MPI standard's data movement "
           "of each collective; docs/placement.md)%s\n",
           g->nedges, u128(g->total, a),
           g->saturated ? "; a pair's bytes passed 2^64 - 1 and are held at that" : "");
    if (g->self)
        printf("  and %s bytes from ranks to themselves, which never cross\n", u128(g->self, a));
    for (size_t i = 0; i < g->nleft; i++)
        printf("  left out: %s, %s bytes (%s)\n", g->left[i].collective,
               u128(g->left[i].bytes, a), g->left[i].why);
    static const char *const headers[] = {"layout", "bytes between nodes", "of the graph's",
                                          "nodes", "most ranks on a node"};
    static const bool right[] = {false, true, true, true, true};
    cli_table *t = cli_table_new(5, headers, right);
    int ok = t != NULL;
    for (int i = 0; ok && i < 4; i++) {
        const cp_placed *x = layout_of(pl, i);
        if (!x->present)
            continue;
        ok = cli_table_cell(t, "%s", layout_label(pl, i, label, sizeof label)) == 0 &&
             cli_table_cell(t, "%s", u128(x->cut, a)) == 0 &&
             cli_table_cell(t, "%s", share(x->cut, g->total, b, sizeof b)) == 0 &&
             cli_table_cell(t, "%" PRId64, x->l.nnodes) == 0 &&
             cli_table_cell(t, "%" PRId64, x->fullest) == 0;
    }
    printf("\n");
    if (cli_table_done(t, ok) < 0)
        return -1;
    if (!pl->own.present)
        printf("the run's own layout: not known (no " CP_FILE_TIMINGS ", which records each rank's "
               "host)\n");
    print_saving(pl);
    if (pl->npairs) {
        printf("\nheaviest node pairs of the proposal:\n");
        for (size_t i = 0; i < pl->npairs; i++)
            printf("  node %" PRId64 " - node %" PRId64 ": %s bytes\n", pl->pairs[i].a,
                   pl->pairs[i].b, u128(pl->pairs[i].bytes, a));
    }
    printf("\nproposal:\n");
    for (int64_t q = 0; q < pl->nnodes; q++) {
        cp_ranges r = {0};
        for (int64_t k = 0; k < pl->proposal.l.nranks; k++)
            if (pl->proposal.l.node[k] == q && cp_ranges_add(&r, k)) {
                cp_ranges_free(&r);
                return -1;
            }
        char *s = cp_ranges_to_string(&r);
        cp_ranges_free(&r);
        if (!s)
            return -1;
        printf("  node %" PRId64 ": ranks %s\n", q, s[0] ? s : "(none)");
        free(s);
    }
    return 0;
}

static void print_json(const cp_placement *pl, const names *nm)
{
    char a[48], label[160];
    const cp_rank_graph *g = &pl->g;
    printf("{\"ranks\": %" PRId64 ", \"nodes\": %" PRId64 ", \"ranks_per_node\": %" PRId64
           ",\n \"graph\": {\"pairs\": %zu, \"bytes\": %s, ",
           g->nranks, pl->nnodes, pl->cap, g->nedges, u128(g->total, a));
    printf("\"self_bytes\": %s, \"saturated\": %s, \"left_out\": [", u128(g->self, a),
           g->saturated ? "true" : "false");
    for (size_t i = 0; i < g->nleft; i++) {
        printf("%s{\"collective\": ", i ? ", " : "");
        cli_json_string(g->left[i].collective);
        printf(", \"bytes\": %s, \"why\": ", u128(g->left[i].bytes, a));
        cli_json_string(g->left[i].why);
        printf("}");
    }
    printf("]},\n \"layouts\": [");
    static const char *const key[] = {"own", "block", "round_robin", "proposal"};
    bool first = true;
    for (int i = 0; i < 4; i++) {
        const cp_placed *x = layout_of(pl, i);
        if (!x->present)
            continue;
        printf("%s\n  {\"name\": \"%s\", \"label\": ", first ? "" : ",", key[i]);
        cli_json_string(layout_label(pl, i, label, sizeof label));
        printf(", \"bytes_between_nodes\": %s, \"nodes\": %" PRId64
               ", \"most_ranks_on_a_node\": %" PRId64 "}",
               u128(x->cut, a), x->l.nnodes, x->fullest);
        first = false;
    }
    printf("],\n \"saving\": {\"vs_block\": %s, ",
           u128(pl->proposal.cut < pl->block.cut ? pl->block.cut - pl->proposal.cut : 0, a));
    printf("\"vs_round_robin\": %s, ",
           u128(pl->proposal.cut < pl->round_robin.cut ? pl->round_robin.cut - pl->proposal.cut
                                                       : 0,
                a));
    if (pl->own.present)
        printf("\"vs_own\": %s},\n",
               u128(pl->proposal.cut < pl->own.cut ? pl->own.cut - pl->proposal.cut : 0, a));
    else
        printf("\"vs_own\": null},\n");
    printf(" \"proposal_by\": ");
    cli_json_string(pl->proposal_by);
    printf(",\n \"node_pairs\": [");
    for (size_t i = 0; i < pl->npairs; i++)
        printf("%s{\"a\": %" PRId64 ", \"b\": %" PRId64 ", \"bytes\": %s}", i ? ", " : "",
               pl->pairs[i].a, pl->pairs[i].b, u128(pl->pairs[i].bytes, a));
    printf("],\n \"hosts\": ");
    if (nm->from) {
        printf("[");
        for (int64_t k = 0; k < nm->n; k++) {
            printf("%s", k ? ", " : "");
            cli_json_string(nm->v[k]);
        }
        printf("]");
    } else {
        printf("null");
    }
    printf(",\n \"proposal\": [");
    for (int64_t r = 0; r < pl->proposal.l.nranks; r++)
        printf("%s%" PRId64, r ? ", " : "", pl->proposal.l.node[r]);
    printf("]}\n");
}

/* ------------------------------------------------------------ the command */

int cli_placement_run(const cli_command *self, int argc, char **argv)
{
    const char *dir = NULL, *nodes_s = NULL, *per_s = NULL, *hosts_s = NULL, *hostfile = NULL,
               *rankfile = NULL, *fmt = "text";
    const cli_opt opts[] = {{"--nodes", &nodes_s, NULL},
                            {"--ranks-per-node", &per_s, NULL},
                            {"--hosts", &hosts_s, NULL},
                            {"--write-hostfile", &hostfile, NULL},
                            {"--write-rankfile", &rankfile, NULL},
                            {"--format", &fmt, NULL},
                            {NULL, NULL, NULL}};
    int rc = cli_parse_args(self, argc, argv, opts, &dir);
    if (rc != CLI_OK)
        return rc;
    int64_t nnodes = 0, per = 0;
    if (!nodes_s)
        return cli_usage_error(self, "--nodes N is required: the nodes to place the ranks on");
    if (cli_int64(self, "--nodes", nodes_s, &nnodes) < 0 ||
        (per_s && cli_int64(self, "--ranks-per-node", per_s, &per) < 0))
        return CLI_USAGE;
    if (nnodes < 1)
        return cli_usage_error(self, "--nodes expects at least 1, not %s", nodes_s);
    if (per_s && per < 1)
        return cli_usage_error(self, "--ranks-per-node expects at least 1, not %s", per_s);
    if (strcmp(fmt, "text") && strcmp(fmt, "json"))
        return cli_usage_error(self, "--format expects text or json, not '%s'", fmt);
    names nm = {0};
    if (hosts_s && (rc = parse_hosts(self, hosts_s, nnodes, &nm)) != 0) {
        names_free(&nm);
        if (rc < 0)
            fprintf(stderr, "collprof: out of memory\n");
        return rc < 0 ? CLI_BAD_INPUT : rc;
    }
    cp_profile p;
    if ((rc = cli_load(dir, &p)) != CLI_OK) {
        names_free(&nm);
        return rc;
    }
    cp_placement pl;
    cp_error err = {{0}};
    if (cp_placement_make(&p, nnodes, per, &pl, &err)) {
        fprintf(stderr, "collprof placement: %s\n", err.msg);
        cp_profile_free(&p);
        names_free(&nm);
        return CLI_BAD_INPUT;
    }
    if (!nm.from && pl.own.present && pl.own_nhosts == nnodes) {
        nm.v = pl.own_hosts, nm.n = pl.own_nhosts, nm.from = "the run's own hosts";
    }
    if ((hostfile || rankfile) && !nm.from) {
        fprintf(stderr,
                "collprof placement: the files need the nodes' names: --hosts a,b,... (%" PRId64
                " names; the run itself ran on %" PRId64 " host%s)\n",
                nnodes, pl.own_nhosts, pl.own_nhosts == 1 ? "" : "s");
        rc = CLI_USAGE;
    }
    file_ctx fc = {&pl.proposal.l, &nm};
    if (rc == CLI_OK && hostfile)
        rc = cli_write_file(hostfile, write_hostfile, &fc, NULL);
    if (rc == CLI_OK && rankfile)
        rc = cli_write_file(rankfile, write_rankfile, &fc, NULL);
    if (rc == CLI_OK) {
        if (!strcmp(fmt, "json")) {
            print_json(&pl, &nm);
        } else if (print_text(&pl, dir) < 0) {
            fprintf(stderr, "collprof: out of memory\n");
            rc = CLI_BAD_INPUT;
        } else if (hostfile || rankfile) {
            printf("\nnode names: %s\n", nm.from);
            if (hostfile)
                printf("wrote %s: one host per line, line i for rank i\n"
                       "  Slurm: SLURM_HOSTFILE=%s srun --distribution=arbitrary -n %" PRId64
                       " PROGRAM\n  MPICH (Hydra): mpiexec.mpich -f %s -n %" PRId64 " PROGRAM\n",
                       hostfile, hostfile, pl.g.nranks, hostfile, pl.g.nranks);
            if (rankfile)
                printf("wrote %s: Open MPI's rankfile\n"
                       "  Open MPI: mpiexec.openmpi --rankfile %s -n %" PRId64 " PROGRAM\n",
                       rankfile, rankfile, pl.g.nranks);
        }
    }
    if (nm.v == pl.own_hosts)
        nm = (names){0};
    names_free(&nm);
    cp_placement_free(&pl);
    cp_profile_free(&p);
    return rc;
}
