/* SPDX-License-Identifier: MIT */
/* main() of `rblk`; everything else is in cli/main.c so tests can link it with a fake library. */
#include "cli/cli.h"

int main(int argc, char **argv)
{
	return rblk_cli_main(argc, argv);
}
