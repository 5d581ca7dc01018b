/*
 * collprof: the reader command.  `collprof <command> [arguments]`.
 *
 * To add a subcommand: write cmd_<name>.c defining a cli_command, declare it
 * in cli.h, add it to the table in commands.c and to tools/meson.build,
 * document it in docs/reader.md (its manual page is made from its help).
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "collprof_config.h"


static const cli_command *find_command(const char *name)
{
    for (size_t i = 0; i < cli_ncommands; i++)
        if (strcmp(cli_commands[i].name, name) == 0)
            return &cli_commands[i];
    return NULL;
}

static void print_usage(FILE *out)
{
    fprintf(out, "usage: collprof <command> [arguments]\n"
                 "       collprof --help | --version | help <command>\n");
}

static void print_help(void)
{
    print_usage(stdout);
    printf("\n%s\ncommands:\n", cli_description);
    for (size_t i = 0; i < cli_ncommands; i++)
        printf("  %-10s %s\n", cli_commands[i].name, cli_commands[i].brief);
    printf("\n'collprof help <command>' describes a command and its options.\n%s",
           cli_exit_status);
}

static void print_version(void)
{
    printf("collprof %s", COLLPROF_VERSION);
    if (COLLPROF_GIT_HASH[0])
        printf(" (git %.12s)", COLLPROF_GIT_HASH);
    printf("\n");
}

static int unknown_command(const char *name)
{
    fprintf(stderr, "collprof: unknown command '%s'\n", name);
    print_usage(stderr);
    fprintf(stderr, "Try 'collprof --help' for the list of commands.\n");
    return CLI_USAGE;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "collprof: no command given\n");
        print_usage(stderr);
        fprintf(stderr, "Try 'collprof --help' for the list of commands.\n");
        return CLI_USAGE;
    }
    const char *first = argv[1];
    if (cli_is_help(first)) {
        print_help();
        return CLI_OK;
    }
    if (strcmp(first, "--version") == 0 || strcmp(first, "-V") == 0) {
        print_version();
        return CLI_OK;
    }
    if (strcmp(first, "help") == 0) {
        if (argc == 2) {
            print_help();
            return CLI_OK;
        }
        if (argc > 3) {
            fprintf(stderr, "collprof help: expected one command name\n");
            print_usage(stderr);
            return CLI_USAGE;
        }
        const cli_command *cmd = find_command(argv[2]);
        if (!cmd)
            return unknown_command(argv[2]);
        cli_print_help(cmd);
        return CLI_OK;
    }
    if (first[0] == '-') {
        fprintf(stderr, "collprof: unknown option '%s'\n", first);
        print_usage(stderr);
        fprintf(stderr, "Try 'collprof --help' for the list of commands.\n");
        return CLI_USAGE;
    }
    const cli_command *cmd = find_command(first);
    if (!cmd)
        return unknown_command(first);
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            break;
        if (cli_is_help(argv[i])) {
            cli_print_help(cmd);
            return CLI_OK;
        }
    }
    int rc = cmd->run ? cmd->run(cmd, argc - 1, argv + 1)
                      : cli_read_dir(cmd, argc - 1, argv + 1);
    /* A damaged profile (named on stderr): whatever the command could do
     * with the rest, the status says the profile is not whole. */
    return rc != CLI_USAGE && cli_damaged ? CLI_DAMAGED : rc;
}
