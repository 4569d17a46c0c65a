// SPDX-License-Identifier: GPL-2.0
/*
 * What a refused load says (bb_refusal_note(), user/core/msg.c): libbpf's messages
 * about a program the kernel refused, as libbpf 1.1 prints them at WARN, give the
 * program's name and the verifier's last line (not its statistics), and no other
 * message is taken for one.
 */
#include <string.h>

#include "msg.h"
#include "tap.h"

static const char log_6_1[] =
	"libbpf: prog 'bloomblock_xdp_tls': BPF program load failed: Permission denied\n"
	"libbpf: prog 'bloomblock_xdp_tls': -- BEGIN PROG LOAD LOG --\n"
	"func#0 @0\n"
	"0: R1=ctx(off=0,imm=0) R10=fp0\n"
	"combined stack size of 3 calls is 544. Too large\n"
	"verification time 1234 usec\n"
	"stack depth 256+0+104+136\n"
	"processed 1000 insns (limit 1000000) max_states_per_insn 4 total_states 10\n"
	"-- END PROG LOAD LOG --\n";

int main(void)
{
	struct bb_refusal r = { 0 };

	tap_plan_header();
	ASSERT_TRUE(bb_refusal_note(&r, "libbpf: prog 'bloomblock_xdp_tls': BPF program load "
				    "failed: Permission denied\n"),
		    "the load failure is libbpf's refusal message");
	ASSERT_TRUE(bb_refusal_note(&r, strstr(log_6_1, "libbpf: prog 'bloomblock_xdp_tls': --")),
		    "the log is one");
	ASSERT_STREQ(r.last, "combined stack size of 3 calls is 544. Too large",
		     "its last line is the verifier's reason, not its statistics");
	ASSERT_TRUE(bb_refusal_note(&r, "libbpf: prog 'bloomblock_tc_url': failed to load: -13\n"),
		    "\"failed to load\" names the program");
	ASSERT_STREQ(r.prog, "bloomblock_tc_url", "... its name");
	ASSERT_TRUE(!bb_refusal_note(&r, "libbpf: map 'filters': created\n"),
		    "another message is not one");
	ASSERT_STREQ(r.prog, "bloomblock_tc_url", "... and leaves the name");
	memset(&r, 0, sizeof(r));
	ASSERT_TRUE(bb_refusal_note(&r, "-- BEGIN PROG LOAD LOG --\nR1 invalid mem access "
				    "'scalar'\n"), "a log without END is read to its end");
	ASSERT_STREQ(r.last, "R1 invalid mem access 'scalar'", "... its last line");
	return tap_finish();
}
