/*
 * cmds.h - `claimcheck` subcommands implemented outside lint.c, each in
 * its own file (cmd_gates.c, cmd_cel.c). argv[0] is the command name; the
 * return value is the process exit code.
 */
#ifndef CLAIMCHECK_CMDS_H
#define CLAIMCHECK_CMDS_H

int cmd_gates(int argc, char **argv);
int cmd_cel(int argc, char **argv);
int cmd_match(int argc, char **argv);

#endif
