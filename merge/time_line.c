/* One rank's clock as a value (time_line.h). */
#include "time_line.h"

double cp_time_line_seconds(const cp_time_line *tl, double ticks)
{
    return tl->clock0 + ticks * tl->tick;
}

double cp_time_line_align(const cp_time_line *tl, double t)
{
    const cp_clock_offset *s = tl->to_rank0;
    if (s[0].have && s[1].have && s[1].at > s[0].at) {
        double w = (t - s[0].at) / (s[1].at - s[0].at);
        return t + s[0].offset + w * (s[1].offset - s[0].offset);
    }
    if (s[1].have)
        return t + s[1].offset;
    if (s[0].have)
        return t + s[0].offset;
    return t - tl->start;
}
