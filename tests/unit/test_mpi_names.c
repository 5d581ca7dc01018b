/*
 * MPI function names of the collectives' forms (writers/mpi_names.h): the
 * name the runtime gives a Cube region parses back to its collective and
 * form, for the standard's spellings; other names are refused.
 */
#include <check.h>
#include <stdlib.h>

#include "mpi_names.h"

START_TEST(names_of_forms)
{
    char out[64];
    cp_mpi_function_name("Alltoallv", CP_FORM_NONBLOCKING + CP_FORM_LARGE, out, sizeof out);
    ck_assert_str_eq(out, "MPI_Ialltoallv_c");
    cp_mpi_function_name("Neighbor_alltoall", CP_FORM_NONBLOCKING, out, sizeof out);
    ck_assert_str_eq(out, "MPI_Ineighbor_alltoall");
    cp_mpi_function_name("Reduce_scatter_block", CP_FORM_PERSISTENT, out, sizeof out);
    ck_assert_str_eq(out, "MPI_Reduce_scatter_block_init");
    cp_mpi_function_name("Bcast", CP_FORM_PERSISTENT + CP_FORM_LARGE, out, sizeof out);
    ck_assert_str_eq(out, "MPI_Bcast_init_c");
    cp_mpi_function_name("Barrier", CP_FORM_BLOCKING, out, sizeof out);
    ck_assert_str_eq(out, "MPI_Barrier");
    cp_mpi_function_name("Gatherv", CP_FORM_ANY, out, sizeof out);
    ck_assert_str_eq(out, "MPI_Gatherv");
}
END_TEST

START_TEST(round_trip)
{
    static const char *const colls[] = {"Alltoall", "Alltoallw", "Allreduce", "Barrier",
                                        "Exscan", "Neighbor_allgatherv", "Scan"};
    for (size_t i = 0; i < sizeof colls / sizeof *colls; i++)
        for (int form = CP_FORM_BLOCKING; form < CP_NFORMS; form++) {
            if ((form & ~CP_FORM_LARGE) == 0)
                continue;
            char name[64], back[64];
            int f = -1;
            cp_mpi_function_name(colls[i], form, name, sizeof name);
            ck_assert_msg(cp_mpi_function_parse(name, back, sizeof back, &f), "%s", name);
            ck_assert_str_eq(back, colls[i]);
            ck_assert_int_eq(f, form);
        }
}
END_TEST

START_TEST(refused)
{
    char c[64];
    int f;
    ck_assert(!cp_mpi_function_parse("main", c, sizeof c, &f));
    ck_assert(!cp_mpi_function_parse("MPI_", c, sizeof c, &f));
    ck_assert(!cp_mpi_function_parse("MPI__c", c, sizeof c, &f));
    ck_assert(!cp_mpi_function_parse("MPI_Alltoallv", c, 4, &f)); /* no room */
    ck_assert(cp_mpi_function_parse("MPI_Alltoallv", c, sizeof c, &f));
    ck_assert_int_eq(f, CP_FORM_BLOCKING);
    ck_assert(cp_mpi_function_parse("MPIX_Alltoallv_init", c, sizeof c, &f));
    ck_assert_str_eq(c, "Alltoallv");
    ck_assert_int_eq(f, CP_FORM_PERSISTENT);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("mpi_names");
    TCase *tc = tcase_create("all");
    tcase_add_test(tc, names_of_forms);
    tcase_add_test(tc, round_trip);
    tcase_add_test(tc, refused);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
