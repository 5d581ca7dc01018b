/* MPI function names of the collectives' forms (see mpi_names.h). */
#include "mpi_names.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

void cp_mpi_function_name(const char *collective, int form, char *out, size_t len)
{
    int base = form & ~CP_FORM_LARGE;
    bool large = form != CP_FORM_ANY && (form & CP_FORM_LARGE);
    const char *suffix = large ? "_c" : "";
    if (base == CP_FORM_NONBLOCKING)
        snprintf(out, len, "MPI_I%c%s%s", tolower((unsigned char)collective[0]),
                 collective[0] ? collective + 1 : "", suffix);
    else if (base == CP_FORM_PERSISTENT)
        snprintf(out, len, "MPI_%s_init%s", collective, suffix);
    else
        snprintf(out, len, "MPI_%s%s", collective, suffix);
}

static bool ends_with(const char *s, size_t n, const char *tail)
{
    size_t t = strlen(tail);
    return n > t && !memcmp(s + n - t, tail, t);
}

bool cp_mpi_function_parse(const char *name, char *collective, size_t len, int *form)
{
    /* MPIX_: persistent forms before MPI 4.0 (Open MPI 4.1). */
    size_t pre = !strncmp(name, "MPI_", 4) ? 4 : !strncmp(name, "MPIX_", 5) ? 5 : 0;
    if (!pre || !isalpha((unsigned char)name[pre]) || len < 2)
        return false;
    const char *s = name + pre;
    size_t n = strlen(s);
    int f = CP_FORM_BLOCKING;
    if (ends_with(s, n, "_c")) {
        f += CP_FORM_LARGE;
        n -= 2;
    }
    if (ends_with(s, n, "_init")) {
        f += CP_FORM_PERSISTENT - CP_FORM_BLOCKING;
        n -= 5;
    } else if (n > 1 && s[0] == 'I' && islower((unsigned char)s[1])) {
        /* MPI_Ialltoallv, MPI_Ineighbor_alltoall: no collective's own name
         * starts with a capital I followed by a small letter. */
        f += CP_FORM_NONBLOCKING - CP_FORM_BLOCKING;
        s++;
        n--;
    }
    if (n == 0 || n >= len)
        return false;
    memcpy(collective, s, n);
    collective[n] = '\0';
    collective[0] = (char)toupper((unsigned char)collective[0]);
    *form = f;
    return true;
}
