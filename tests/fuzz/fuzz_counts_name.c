/*
 * Fuzz target: the counts file name parser, cp_compact_parse_name
 * ("send-counters.rank12.txt", other tools' "recv-counters.job0.rank3.txt.gz").
 *
 * The input is a file name (a path: the part after the last '/' counts).
 * An accepted name gives a direction and a non-negative lead rank, and the
 * canonical name built from them is accepted with the same result.
 */
#include <inttypes.h>
#include <string.h>

#include "compact.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* The parser takes a C string: stop at the first NUL as a caller would. */
    char *name = malloc(size + 1);
    if (!name)
        return 0;
    memcpy(name, data, size);
    name[size] = '\0';
    int dir = -1;
    int64_t lead = -1;
    if (cp_compact_parse_name(name, &dir, &lead) == 0) {
        FUZZ_CHECK(dir == CP_SEND || dir == CP_RECV, "direction %d", dir);
        FUZZ_CHECK(lead >= 0, "lead %" PRId64, lead);
        char canon[64];
        snprintf(canon, sizeof canon, "%s-counters.rank%" PRId64 ".txt",
                 dir == CP_SEND ? "send" : "recv", lead);
        int dir2 = -1;
        int64_t lead2 = -1;
        FUZZ_CHECK(cp_compact_parse_name(canon, &dir2, &lead2) == 0 && dir2 == dir &&
                       lead2 == lead,
                   "canonical name '%s' reads differently", canon);
    }
    /* NULL outputs are allowed. */
    cp_compact_parse_name(name, NULL, NULL);
    free(name);
    return 0;
}
