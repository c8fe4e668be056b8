#include "initiator/cli.h"
int rblk_cli_attach(int argc, char **argv) { (void)argc; (void)argv; return 1; }
int rblk_cli_detach(int argc, char **argv) { (void)argc; (void)argv; return 1; }
