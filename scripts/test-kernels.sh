#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The kernel matrix (docs/KERNELS.md): boot each of Debian's kernels under qemu, with
# this machine's root filesystem shared in, and run bloomblock's kernel checks inside
# (tests/kernels/guest.sh: every BPF program through the verifier, the BPF_PROG_TEST_RUN
# suites, a real load/traffic/reload/unload smoke). Each kernel's results are a TAP
# section of their own; the last line is "N passed, N failed[, N skipped]".
#
#   scripts/test-kernels.sh [OPTIONS] [KERNEL...]      (root; build first: make tests)
#
# KERNEL (default: 6.1 6.12 newest):
#   6.1, 6.12      the newest linux-image-6.1.*-amd64 / 6.12.*-amd64 apt offers
#   newest         the newest linux-image-*-amd64 of any series (skipped when it is one
#                  of the kernels already run)
#   6.1.0-57-amd64 an ABI name (or linux-image-...), or a path to a kernel .deb
# Options:
#   --run CMD        run CMD (bash -c, in the project directory) instead of the checks
#   --accel A        auto (default: KVM when /dev/kvm works and the CPU shows vmx/svm,
#                    else TCG; a KVM guest silent for 60 s is booted again under TCG),
#                    kvm or tcg
#   --timeout S      per kernel, boot included (default 1800)
#   --mem SIZE       guest memory (default 4G); --smp N guest CPUs (default 2)
#   --cache DIR      kernel packages, unpacked trees, initramfs images and each kernel's
#                    logs (default $BB_KERNEL_CACHE or /var/tmp/bloomblock-kernels)
#   -v, --verbose    the guest's console on stderr too
#   -h, --help
#
# How: `apt-get download` fetches the package into the cache, `dpkg -x` unpacks it,
# and an initramfs (busybox-static, the kernel's 9p/virtio/overlay modules) mounts the
# host's / read-only over virtio-9p with a tmpfs overlay on top (writes stay in guest
# RAM; the project is seen at its own path), then the real root's bash runs the checks
# as PID 1 with bpffs, debugfs, the kernel's modules (from the cache) and its BTF. The
# guest has NO network device: -nic none. Output goes through a second 9p share, the
# job directory, kept as $cache/runs/KERNEL_VERSION/ (out.log, console.log, the logs of
# each check). Needs qemu-system-x86 busybox-static kmod zstd xz-utils (install-deps.sh).
# Time here (TCG, 2 cores): about 20 s to boot, a few minutes of checks a kernel.
set -euo pipefail

say() { echo "test-kernels: $*" >&2; }
die() { say "$*"; exit 2; }
usage() { sed -n '3,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit "${1:-0}"; }

project=$(cd "$(dirname "$0")/.." && pwd -P)
out_dir=${BB_OUTPUT:-.output}
run_cmd='' accel=auto timeout_s=1800 mem=4G smp=2 verbose=0
cache=${BB_KERNEL_CACHE:-/var/tmp/bloomblock-kernels}
kernels=()
while [ $# -gt 0 ]; do
	case $1 in
	--run) run_cmd=$2; shift ;;
	--accel) accel=$2; shift ;;
	--timeout) timeout_s=$2; shift ;;
	--mem) mem=$2; shift ;;
	--smp) smp=$2; shift ;;
	--cache) cache=$2; shift ;;
	-v | --verbose) verbose=1 ;;
	-h | --help) usage 0 ;;
	-*) die "unknown option $1 (--help)" ;;
	*) kernels+=("$1") ;;
	esac
	shift
done
[ ${#kernels[@]} -gt 0 ] || kernels=(6.1 6.12 newest)
[ "$(id -u)" = 0 ] || die "run as root (qemu's 9p serves the host's files as their owner)"
for t in qemu-system-x86_64 busybox modprobe depmod dpkg apt-get zstd xz cpio gzip; do
	command -v "$t" >/dev/null || die "$t is missing: scripts/install-deps.sh installs it"
done
case "$(ldd "$(command -v busybox)" 2>&1 || true)" in
*'not a dynamic'*) ;;
*) die "busybox is not static: apt-get install busybox-static" ;;
esac
[ -x "$project/$out_dir/tests/progcheck" ] || [ -n "$run_cmd" ] ||
	die "$out_dir/tests/progcheck is missing: make tests first"
mkdir -p "$cache"/debs "$cache"/trees "$cache"/runs
cache=$(cd "$cache" && pwd -P)
exec 9>"$cache/.lock"	# one run at a time: they share the cache and the run directories
flock -n 9 || { say "another run holds $cache: waiting for it"; flock 9; }

# ---- which package, fetched and unpacked ---------------------------------------------

# the newest linux-image-SERIES*-amd64 apt has a candidate for (SERIES empty: any)
newest_package() {
	local series=$1 re pkg
	if [ -n "$series" ]; then
		re="^linux-image-${series//./\\.}(\\.[0-9]+)*(-[0-9]+)?(\\+deb[0-9]+)?-amd64\$"
	else
		re='^linux-image-[0-9][0-9.]*(-[0-9]+)?(\+deb[0-9]+)?-amd64$'
	fi
	for pkg in $(apt-cache pkgnames linux-image- | grep -E "$re" | sort -V -r); do
		# (no `| grep -q` under pipefail: grep's early exit fails apt-cache with SIGPIPE)
		if [[ $(apt-cache policy "$pkg") =~ Candidate:\ [0-9] ]]; then
			echo "$pkg"
			return 0
		fi
	done
	return 1
}

# KERNEL -> the path of its .deb in the cache (downloaded when missing)
kernel_deb() {
	local k=$1 pkg deb
	case $k in
	*.deb) [ -f "$k" ] && { echo "$k"; return 0; }; say "no file $k"; return 1 ;;
	newest) pkg=$(newest_package '') ;;
	[0-9]*.[0-9]*-* | linux-image-*) pkg=linux-image-${k#linux-image-} ;;
	[0-9]*.[0-9]*) pkg=$(newest_package "$k") ;;
	*) say "$k: not a kernel (6.1, 6.12, newest, an ABI name, a .deb)"; return 1 ;;
	esac || { say "apt knows no package for $k (apt-get update?)"; return 1; }
	deb=$(ls "$cache/debs/${pkg}_"*.deb 2>/dev/null | sort -V | tail -n 1 || true)
	if [ -z "$deb" ]; then
		say "downloading $pkg"
		# (apt's _apt user cannot write here: it downloads as root, and says so)
		(cd "$cache/debs" && apt-get download -q "$pkg" >/dev/null 2>.err) ||
			{ say "apt-get download $pkg failed: $(cat "$cache/debs/.err")"; return 1; }
		deb=$(ls "$cache/debs/${pkg}_"*.deb | sort -V | tail -n 1)
	fi
	echo "$deb"
}

# DEB -> sets tree (the unpacked package), kver, vmlinuz
unpack() {
	local deb=$1
	tree=$cache/trees/$(basename "$deb" .deb)
	if [ ! -e "$tree/.done" ]; then
		rm -rf "$tree" && mkdir -p "$tree"
		dpkg -x "$deb" "$tree"
		kver=$(ls "$tree/lib/modules")
		depmod -b "$tree" "$kver"
		touch "$tree/.done"
	fi
	kver=$(ls "$tree/lib/modules")
	vmlinuz=$tree/boot/vmlinuz-$kver
	[ -f "$vmlinuz" ] || { say "$deb has no boot/vmlinuz-$kver"; return 1; }
}

# ---- the initramfs: busybox, what mounts 9p and overlay, and /init -------------------

initramfs() {
	local img=$cache/trees/initrd-$kver.img tmp m f name
	if [ -s "$img" ] && [ "$img" -nt "$0" ]; then
		echo "$img"
		return 0
	fi
	tmp=$(mktemp -d)
	mkdir -p "$tmp"/{bin,dev,proc,sys,lower,rw,newroot,job,modules}
	cp "$(command -v busybox)" "$tmp/bin/busybox"
	# the modules in load order, decompressed (busybox's insmod takes plain .ko)
	for m in virtio_pci 9pnet_virtio 9p overlay; do
		modprobe -d "$tree" -S "$kver" --show-depends "$m" | while read -r kind f _; do
			[ "$kind" = insmod ] || continue
			name=$(basename "$f"); name=${name%.xz}; name=${name%.zst}
			[ -e "$tmp/modules/$name" ] && continue
			case $f in
			*.xz) xz -dc "$f" ;;
			*.zst) zstd -qdc "$f" ;;
			*) cat "$f" ;;
			esac >"$tmp/modules/$name"
			echo "$name" >>"$tmp/modules/order"
		done
	done
	touch "$tmp/modules/order"
	cat >"$tmp/init" <<'EOF'
#!/bin/busybox sh
# The guest's first stage: mount the host's root (9p, read-only) under a tmpfs overlay
# and the job share, then hand over to the real root's stage2.sh.
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc; mount -t sysfs sysfs /sys; mount -t devtmpfs devtmpfs /dev
echo "bbinit: up, $(uname -r)" >/dev/console
fail() { echo "bbinit: $*" >/dev/console; echo o >/proc/sysrq-trigger; sleep 10; }
for m in $(cat /modules/order); do insmod "/modules/$m" 2>/dev/null; done
o='trans=virtio,version=9p2000.L,msize=262144'
mount -t 9p -o "$o,ro,cache=loose" hostroot /lower || fail "cannot mount the host's root"
mount -t tmpfs -o mode=0755 rw /rw && mkdir -p /rw/upper /rw/work
mount -t overlay -o lowerdir=/lower,upperdir=/rw/upper,workdir=/rw/work overlay /newroot ||
	fail "cannot mount the overlay"
mkdir -p /newroot/run && mount -t tmpfs -o mode=0755 run /newroot/run
mkdir -p /newroot/run/job && mount -t 9p -o "$o,cache=none" job /newroot/run/job ||
	fail "cannot mount the job share"
mount --move /proc /newroot/proc; mount --move /sys /newroot/sys; mount --move /dev /newroot/dev
exec switch_root /newroot /bin/bash /run/job/stage2.sh
EOF
	chmod 755 "$tmp/init"
	(cd "$tmp" && find . | cpio -o -H newc --quiet | gzip -1) >"$img.tmp"
	mv "$img.tmp" "$img"
	rm -rf "$tmp"
	echo "$img"
}

# ---- the job: what the guest runs, and how it reports ---------------------------------

# DIR: stage2.sh (the guest's PID 1 in the real root) and cmd.sh (the checks)
write_job() {
	local job=$1
	cat >"$job/stage2.sh" <<'EOF'
# The guest's PID 1 in the host's root (scripts/test-kernels.sh): the mounts a BPF test
# needs, the kernel's own modules, then cmd.sh; its output and status go to /run/job.
exec </dev/null >/dev/console 2>&1
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8
off() { sync; echo o >/proc/sysrq-trigger; sleep 30; }
trap off EXIT
. /run/job/config
mkdir -p /dev/pts /dev/shm && mount -t devpts devpts /dev/pts && mount -t tmpfs shm /dev/shm
mount -t tmpfs -o mode=1777 tmp /tmp	# (/var/tmp stays: the kernel's modules are there)
mount -t bpf bpf /sys/fs/bpf
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t cgroup2 cgroup2 /sys/fs/cgroup 2>/dev/null
mkdir -p /run/netns /run/lock
mkdir -p /lib/modules && mount --bind "$KTREE/lib/modules" /lib/modules
for m in veth sch_ingress cls_bpf act_bpf; do modprobe -q "$m" 2>/dev/null; done
ip link set lo up
ulimit -l unlimited
echo "bbguest: $(uname -r) up"
timeout -k 10 "$KCMD_TIMEOUT" bash /run/job/cmd.sh >/run/job/out.log 2>&1
echo $? >/run/job/rc
dmesg >/run/job/dmesg.log 2>&1
echo "bbguest: done"
EOF
	{
		printf 'KTREE=%q\nKCMD_TIMEOUT=%q\n' "$tree" "$((timeout_s - 60))"
	} >"$job/config"
	{
		printf 'cd %q || exit 125\n' "$project"
		printf 'export BB_OUTPUT=%q BB_RESULTS=/run/job BB_RESULTS_SHOWN=%q\n' "$out_dir" "$job"
		[ -n "${CI:-}" ] && printf 'export CI=%q\n' "$CI"
		# BB_QUICK=1: the suites' smaller random sets (test_diff, test_nofn), every check
		[ -n "${BB_QUICK:-}" ] && printf 'export BB_QUICK=%q\n' "$BB_QUICK"
		if [ -n "$run_cmd" ]; then
			printf 'exec bash -c %q\n' "$run_cmd"
		else
			echo 'exec bash tests/kernels/guest.sh'
		fi
	} >"$job/cmd.sh"
}

kvm_usable() { [ -w /dev/kvm ] && grep -qwE 'vmx|svm' /proc/cpuinfo; }

qpid=''
stop_qemu() { [ -n "$qpid" ] && kill "$qpid" 2>/dev/null; qpid=''; return 0; }
trap stop_qemu EXIT
trap 'stop_qemu; exit 130' INT TERM

# ACCEL SECONDS: qemu in the background (its pid in qpid)
boot() {
	local a=$1 secs=$2 cpu
	if [ "$a" = kvm ]; then cpu=(-accel kvm -cpu host); else cpu=(-accel tcg,thread=multi -cpu max); fi
	: >"$job/console.log"
	timeout -k 10 "$secs" qemu-system-x86_64 "${cpu[@]}" -m "$mem" -smp "$smp" \
		-nographic -monitor none -serial "file:$job/console.log" -nic none -no-reboot \
		-kernel "$vmlinuz" -initrd "$initrd" \
		-append "console=ttyS0 rdinit=/init panic=-1 loglevel=4 mitigations=off" \
		-fsdev "local,id=root,path=/,security_model=none,readonly=on,multidevs=remap" \
		-device virtio-9p-pci,fsdev=root,mount_tag=hostroot \
		-fsdev "local,id=job,path=$job,security_model=none" \
		-device virtio-9p-pci,fsdev=job,mount_tag=job \
		</dev/null >"$job/qemu.log" 2>&1 &
	qpid=$!
}

# Run one kernel: its TAP section on stdout; sets k_pass, k_fail, k_skip
run_kernel() {
	local k=$1 deb start a rc
	k_pass=0 k_fail=0 k_skip=0 k_dup=0 kver=''
	if ! deb=$(kernel_deb "$k") || ! unpack "$deb"; then
		echo "# ==== kernel $k"
		echo "not ok 1 kernel $k: no kernel package (see above)"
		k_fail=1
		return 0
	fi
	if [ -n "${seen[$kver]:-}" ]; then
		echo "# ==== kernel $k is $kver, already run as ${seen[$kver]}"
		k_dup=1
		return 0
	fi
	seen[$kver]=$k
	initrd=$(initramfs)
	job=$cache/runs/$kver
	rm -rf "$job" && mkdir -p "$job"
	write_job "$job"
	a=$accel
	[ "$a" = auto ] && { kvm_usable && a=kvm || a=tcg; }
	echo "# ==== kernel $kver ($(basename "$deb" .deb)), $a"
	start=$SECONDS
	boot "$a" "$timeout_s"
	if [ "$a" = kvm ]; then	# a /dev/kvm that cannot run this kernel hangs it silently
		for _ in $(seq 60); do
			grep -q 'bbinit: up' "$job/console.log" && break
			kill -0 "$qpid" 2>/dev/null || break
			sleep 1
		done
		if ! grep -q 'bbinit: up' "$job/console.log" && [ "$accel" = auto ]; then
			stop_qemu
			say "$kver did not start under KVM in 60 s: TCG"
			a=tcg
			boot tcg $((timeout_s - (SECONDS - start)))
		fi
	fi
	[ "$verbose" = 1 ] && tail -n +1 -f --pid="$qpid" "$job/console.log" >&2 &
	# the guest's TAP as it comes
	: >"$job/out.log"
	tail -n +1 -f --pid="$qpid" "$job/out.log" &
	local tail_pid=$!
	wait "$qpid" || true
	qpid=''
	wait "$tail_pid" 2>/dev/null || true
	k_pass=$(grep -cE '^ok [0-9]+' "$job/out.log" || true)
	k_skip=$(grep -cE '^ok [0-9]+ .*# SKIP' "$job/out.log" || true)
	k_fail=$(grep -cE '^not ok [0-9]+' "$job/out.log" || true)
	k_pass=$((k_pass - k_skip))
	rc=$(cat "$job/rc" 2>/dev/null || echo none)
	if [ "$rc" = none ]; then
		echo "not ok $((k_pass + k_fail + k_skip + 1)) kernel $kver: the guest reported no" \
			"result (timeout after ${timeout_s} s, or no boot); its console's end:"
		tail -n 15 "$job/console.log" | tr -d '\r' | sed 's/^/#   /'
		k_fail=$((k_fail + 1))
	elif [ "$rc" != 0 ] && [ "$k_fail" = 0 ]; then
		echo "not ok $((k_pass + k_skip + 1)) kernel $kver: the checks exited $rc"
		k_fail=1
	fi
	echo "# ==== kernel $kver: $k_pass passed, $k_fail failed, $k_skip skipped" \
		"($((SECONDS - start)) s under $a; logs in $job)"
}

declare -A seen=()
pass=0 fail=0 skip=0 summary=()
echo "TAP version 13"
for k in "${kernels[@]}"; do
	run_kernel "$k"
	[ "$k_dup" = 1 ] && continue
	pass=$((pass + k_pass)) fail=$((fail + k_fail)) skip=$((skip + k_skip))
	summary+=("$(printf '#   %-24s %4d passed %4d failed %4d skipped' "${kver:-$k}" \
		"$k_pass" "$k_fail" "$k_skip")")
done
echo "# ==== the matrix"
printf '%s\n' "${summary[@]}"
if [ "$skip" -gt 0 ]; then
	echo "$pass passed, $fail failed, $skip skipped"
else
	echo "$pass passed, $fail failed"
fi
[ "$fail" -eq 0 ]
