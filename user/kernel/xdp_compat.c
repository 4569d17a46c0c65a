// SPDX-License-Identifier: GPL-2.0
/*
 * The freplace probe (xdp_compat.h). libxdp's dispatcher shares an interface's XDP hook
 * among programs by loading each as an extension (BPF_PROG_TYPE_EXT, "freplace") of one
 * of the dispatcher's global functions; xdp-loader falls back to a single program
 * when the kernel refuses that. This asks the same question the same way, with two
 * programs of our own: a target with a global function, then an extension of it.
 * load records the answer with the way it attached, and status says both.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <bpf/libbpf.h>
#include <jansson.h>

#include "msg.h"
#include "outfile.h"
#include "state.h"
#include "xdp_compat.h"
#include "freplace_ext.skel.h"
#include "freplace_target.skel.h"

/* The probe's refusal is its answer, said in status: libbpf's warnings about it are noise. */
static int quiet_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	return bb_msg.debug ? vfprintf(stderr, fmt, ap) : 0;
}

/* The probe, once a process: its answer and why. */
static bool probed, probe_ok;
static char probe_why[256];

static bool probe_once(void)
{
	if (!probed)
		probe_ok = bb_xdp_freplace_probe(probe_why, sizeof(probe_why));
	probed = true;
	return probe_ok;
}

bool bb_xdp_dispatcher_works(void)
{
	return probe_once();
}

bool bb_xdp_freplace_probe(char *why, size_t size)
{
	libbpf_print_fn_t was = libbpf_set_print(quiet_print);
	struct freplace_target *t = freplace_target__open_and_load();
	struct freplace_ext *e = NULL;
	int err;

	if (!t) {
		libbpf_set_print(was);
		snprintf(why, size, "the probe's XDP target did not load: %s", strerror(errno));
		return false;
	}
	e = freplace_ext__open();
	err = e ? bpf_program__set_attach_target(e->progs.freplace_ext,
						 bpf_program__fd(t->progs.freplace_target),
						 "probe_slot") : -errno;
	err = err ?: freplace_ext__load(e);
	if (err)
		snprintf(why, size, "the kernel refuses an extension (freplace) program: %s",
			 strerror(err < 0 ? -err : err));
	freplace_ext__destroy(e);
	freplace_target__destroy(t);
	libbpf_set_print(was);
	return !err;
}

void bb_xdp_compat_save(bool libxdp)
{
	char path[512];
	bool ok = probe_once();
	json_t *j = json_pack("{s:s, s:b, s:s, s:I}", "attach", libxdp ? "libxdp" : "bpf_link",
			      "freplace", ok, "why", probe_why, "probed", (json_int_t)time(NULL));

	if (j && !bb_state_path(path, sizeof(path), BB_STATE_XDP)) {
		int err = bb_json_write(j, path, 0);

		if (err)
			pr_warn("%s: %s\n", path, strerror(-err));
	}
	json_decref(j);
}

const char *bb_xdp_compat_text(char *buf, size_t size)
{
	char path[512];
	json_t *j;

	buf[0] = '\0';
	if (bb_state_path(path, sizeof(path), BB_STATE_XDP) || !(j = json_load_file(path, 0, NULL)))
		return buf;
	bool libxdp = !strcmp(json_string_value(json_object_get(j, "attach")) ?: "", "libxdp");
	const char *why = json_string_value(json_object_get(j, "why")) ?: "?";

	if (json_is_true(json_object_get(j, "freplace")))
		snprintf(buf, size, libxdp ? "through libxdp's dispatcher: this kernel allows "
			 "freplace, and other libxdp programs share the hook (xdp-loader status)" :
			 "a plain bpf_link (--xdp-attach link); this kernel allows freplace, so "
			 "libxdp's dispatcher could share the hook (--xdp-attach auto)");
	else if (libxdp)
		snprintf(buf, size, "through libxdp, alone: %s, so libxdp attaches one program "
			 "without its dispatcher, and no other can share the hook", why);
	else
		snprintf(buf, size, "a plain bpf_link, not libxdp's dispatcher: %s (so no "
			 "other program can share the hook through it)", why);
	json_decref(j);
	return buf;
}
