/* The usage text of collprof-replay: printed by --help and on a usage
 * error, and made into its manual page (tools/man/gen_replay_man.c). */
#include "replay.h"

void replay_usage(FILE *out)
{
    fputs("usage: mpiexec -n N collprof-replay DIR [--sequence] [--comm ID] [--collective NAME]\n"
          "           [--top K] [--top-by time|bytes] [--scale-counts F] [--repetitions R]\n"
          "           [--seconds S] [--json FILE]\n"
          "Measures each distinct (communicator, collective, count matrix) of the collprof\n"
          "profile in DIR the way the Intel MPI Benchmarks measure a collective; --sequence\n"
          "replays the recorded calls in their recorded order instead.  N must be at least\n"
          "the recorded world size.  Each pattern's timed calls take about S seconds at\n"
          "the most (default 1; --repetitions R sets their number instead).  See\n"
          "docs/replay.md.\n",
          out);
}
