/*
 * What a setting of collprof-replay --tune selects, read back from the MPI
 * library through MPI_T: started with one of the settings in the
 * environment, it prints the algorithm the library's control variable now
 * names, so a test sees that the setting selects the algorithm it names.
 *
 * usage: mpiexec -n 1 tune_setting_check COLLECTIVE
 * prints "current: NAME" and then "setting: NAME<TAB>ENVIRONMENT" for each
 * algorithm of COLLECTIVE (blocking, intracommunicator).
 */
#include <stdio.h>

#include "replay.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    char why[256];
    int status = 1;
    if (argc == 2 && replay_algos_open(why, sizeof why) == 0) {
        replay_algos a;
        replay_algos_find(argv[1], false, false, &a);
        int k = replay_algos_current(&a);
        if (a.n == 0) {
            printf("none: %s\n", a.why);
        } else {
            printf("current: %s\n", k >= 0 ? a.names[k] : "(a value no algorithm has)");
            for (int j = 0; j < a.n; j++) {
                char env[256];
                replay_algos_setting(&a, j, env, sizeof env);
                printf("setting: %s\t%s\n", a.names[j], env);
            }
            status = 0;
        }
        replay_algos_close();
    }
    MPI_Finalize();
    return status;
}
