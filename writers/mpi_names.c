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

/* ------------------------------------------------------- error classes */

static const char *const error_classes[] = {
#define CP_NAME_OF(c) #c,
    CP_ERROR_CLASSES(CP_NAME_OF)
#undef CP_NAME_OF
};
#define NCLASSES (int)(sizeof error_classes / sizeof *error_classes)

void cp_error_class_name(int code, char *out, size_t len)
{
    if (code >= 1 && code <= NCLASSES)
        snprintf(out, len, "%s", error_classes[code - 1]);
    else
        snprintf(out, len, "MPI_ERR_CLASS_%d", code >= CP_ERROR_CLASS_OTHER
                                                   ? code - CP_ERROR_CLASS_OTHER : code);
}

int cp_error_class_parse(const char *name, size_t len)
{
    for (int i = 0; i < NCLASSES; i++)
        if (strlen(error_classes[i]) == len && memcmp(error_classes[i], name, len) == 0)
            return i + 1;
    static const char other[] = "MPI_ERR_CLASS_";
    size_t n = sizeof other - 1;
    if (len <= n || len > n + 6 || memcmp(name, other, n) != 0)
        return -1;
    int v = 0;
    for (size_t i = n; i < len; i++) {
        if (name[i] < '0' || name[i] > '9')
            return -1;
        v = 10 * v + (name[i] - '0');
    }
    return CP_ERROR_CLASS_OTHER + v;
}
