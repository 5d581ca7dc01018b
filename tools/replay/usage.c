/* The usage text of collprof-replay: printed by --help and on a usage
 * error, and made into its manual page (tools/man/gen_replay_man.c). */
#include "replay.h"

void replay_usage(FILE *out)
{
    fputs("usage: mpiexec -n N collprof-replay DIR [--sequence] [--comm ID] [--collective NAME]\n"
          "           [--top K] [--top-by time|bytes] [--scale-counts F] [--repetitions R]\n"
          "           [--seconds S] [--json FILE]\n"
          "       mpiexec -n N collprof-replay DIR --tune [--rounds R] [--seconds S] [--validate]\n"
          "           [--rules FILE] [--json FILE] [--comm ID] [--collective NAME] [--top K]\n"
          "       mpiexec -n N collprof-replay DIR --validate --setting NAME=VALUE...\n"
          "           [--rounds R]\n"
          "       mpiexec -n 1 collprof-replay --algorithms\n"
          "Measures each distinct (communicator, collective, count matrix) of the collprof\n"
          "profile in DIR the way the Intel MPI Benchmarks measure a collective; --sequence\n"
          "replays the recorded calls in their recorded order instead.  N must be at least\n"
          "the recorded world size.  Each pattern's timed calls take about S seconds at\n"
          "the most (default 1; --repetitions R sets their number instead).  See\n"
          "docs/replay.md.\n"
          "--tune measures, on each pattern, every algorithm the MPI library offers for\n"
          "its collective (MPICH's MPIR_CVAR_..._ALGORITHM, Open MPI's coll_tuned and\n"
          "coll_libnbc ..._algorithm, found through MPI_T) in R rounds that interleave\n"
          "them (default 5; the pattern's S seconds shared among them), names the\n"
          "fastest only beyond the rounds' spread, projects the time the run would save\n"
          "and prints the settings that choose it.  Open MPI's coll/tuned obeys a choice\n"
          "only when OMPI_MCA_coll_tuned_use_dynamic_rules=1 is set at launch.\n"
          "--validate then replays the recorded sequence R times with the library's own\n"
          "choices and R times with the settings, alternately, and sets the measured\n"
          "saving beside the projected one; with --setting (a line --tune printed, from\n"
          "this run or another, one --setting each) it checks those settings instead.\n"
          "--rules FILE (Open MPI) also writes coll/tuned's dynamic rules file with one\n"
          "algorithm per collective and communicator size the application used.\n"
          "--algorithms lists every collective's algorithms in this MPI library.\n",
          out);
}
