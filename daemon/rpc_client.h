/* SPDX-License-Identifier: MIT */
/*
 * `rblk-target rpc METHOD [--PARAM VALUE]... [--json OBJECT]`: one request
 * to a running rblk-target's management socket, its result printed as
 * JSON. For people and shell scripts; SPDK's rpc.py works on the same
 * socket too.
 */
#ifndef RBLK_TARGET_RPC_CLIENT_H
#define RBLK_TARGET_RPC_CLIENT_H

#include <stdio.h>

struct json_object;

/*
 * Builds the request's params from the arguments after METHOD: "--a.b V"
 * sets member b of object a ('-' in names reads as '_'); V is taken as
 * JSON when it is a number, true, false, null, a quoted string, an object
 * or an array, else as a string; "--json OBJECT" merges an object. 0, or
 * -EINVAL with a message on @err.
 */
int rblk_tgt_rpc_client_params(int argc, char **argv, struct json_object **out, FILE *err);
/* argv[0] is "rpc". Returns the exit status: 0, 1 (the call failed), 2 (usage). */
int rblk_tgt_rpc_client_main(int argc, char **argv);

#endif
