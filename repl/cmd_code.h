/* cmd_code.h - print code, print readable and save code (cmd_code.c),
 * reached from print's and save's subcommands and print node. */
#ifndef EXDB_REPL_CMD_CODE_H
#define EXDB_REPL_CMD_CODE_H

#include "core/fx/graph.h"
#include "session.h"

/* print code ... (readable 0) or print readable ... (readable 1); argv[0]
 * is "code" or "readable". */
int cmd_code_print(session *s, int readable, int argc, char **argv);
/* save code [--force] [module [FQN]] FILE; argv[0] is "code". */
int cmd_code_save(session *s, int argc, char **argv);
/* print node: appends "  code:      line N: ..." for a flat node. */
void cmd_code_node_line(session *s, const exdb_node *n, cJSON *node_json);

#endif
