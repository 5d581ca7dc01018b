/*
 * The CPU load of IMB-NBC's overlap measurement: arithmetic for a given
 * time, calibrated once (iterations per second of this loop on this core).
 */
#include "replay.h"

static volatile double sink;
static double per_second;

static void spin(long n)
{
    double x = 1.0;
    for (long i = 0; i < n; i++)
        x = x * 1.0000001 + 1e-9;
    sink = x;
}

void replay_cpu_load(double seconds)
{
    if (per_second == 0) {
        long n = 1000;
        double t;
        do { /* until the loop takes 10 ms */
            n *= 2;
            double t0 = MPI_Wtime();
            spin(n);
            t = MPI_Wtime() - t0;
        } while (t < 0.01 && n < (1L << 40));
        per_second = (double)n / (t > 0 ? t : 1e-9);
    }
    spin((long)(seconds * per_second));
}
