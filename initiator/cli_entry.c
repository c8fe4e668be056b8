/* SPDX-License-Identifier: MIT */
/* main() of `rblk`; everything else is in cli_main.c so tests can link it with a fake library. */
#include "initiator/cli.h"

int main(int argc, char **argv)
{
	return rblk_cli_main(argc, argv);
}
