/* cmd_find.c - placeholder */
#include "command.h"
int cmd_find(session *s, int argc, char **argv) {
    (void)argc;
    (void)argv;
    return cmd_fail(s, "find: not yet");
}
int cmd_find_is_glob(const char *word) {
    (void)word;
    return 0;
}
