/* SPDX-License-Identifier: GPL-2.0 */
/* What the host must offer bloomblock, checked with a message that says what to do. */
#ifndef BB_ENV_H
#define BB_ENV_H

/* Root (or the capabilities root has). 0 or -EPERM, said. */
int bb_require_root(void);
/* The capabilities that loading programs and attaching them take (root may lack them). */
int bb_require_bpf_caps(void);
/* pin_dir's parent on a BPF filesystem. 0 or -ENOENT, said (with the way to mount one). */
int bb_require_bpffs(const char *pin_dir);
/* The interface's index. 0 or -ENODEV, said. */
int bb_require_ifindex(const char *ifname, int *ifindex);
/*
 * A pin directory as one spelling: absolute, no empty, "." or ".." component, no
 * trailing slash (/sys/fs/bpf//x/ is /sys/fs/bpf/x), so that one instance is never
 * taken for several (its state directory and tc handle come from it). A static buffer.
 */
const char *bb_pin_dir_canonical(const char *in);
/* libbpf's messages through ours: warnings only, unless bb_msg.debug. */
void bb_libbpf_setup(void);
/* The running kernel's release (uname -r). */
const char *bb_kernel_release(void);
/* The last program the kernel refused and the verifier's last word on it, or NULL. */
const char *bb_libbpf_refusal(char *buf, size_t size);

#endif /* BB_ENV_H */
