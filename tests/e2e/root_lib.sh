# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# A throw-away Debian 12 root for tests that install what ships (test_package_e2e.sh):
# never this machine's own /usr, /etc or dpkg database. On top of lib.sh.
#
#   root_make                  a fresh root in $ROOT (under /var/tmp), from the cached base
#   in_root CMD...             CMD chrooted into $ROOT, with /proc, /sys (of the caller's
#                              network namespace), /dev and the host's bpffs mounted in
#                              a mount namespace of its own: the mounts end with CMD, so
#                              none is ever left on the machine
#   root_remove                $ROOT gone (after checking nothing is mounted under it)
#
# The base: `debootstrap --variant=minbase` of bookworm from Debian's registry, with
# man-db, procps and systemd (the checks read the man page and verify the unit, whose
# ExecReload runs /bin/kill: procps, "important" in Debian, so on every real system but
# not in minbase), made once and
# kept as a tar in $BB_ROOT_CACHE (/var/tmp/bloomblock-test-root), so later runs unpack it
# in seconds; the .deb files apt fetches into a root are kept there too (archives/), so a
# later root installs the same dependencies without downloading them again. Delete the
# directory to start again; BB_ROOT_CACHE_DAYS (30): a base older than that is made anew.

BB_ROOT_CACHE=${BB_ROOT_CACHE:-/var/tmp/bloomblock-test-root}
BB_ROOT_SUITE=bookworm
BB_ROOT_MIRROR=${BB_ROOT_MIRROR:-http://deb.debian.org/debian}
BB_ROOT_INCLUDE=man-db,procps,systemd
BB_ROOT_BASE=$BB_ROOT_CACHE/$BB_ROOT_SUITE-minbase-${BB_ROOT_INCLUDE//,/-}.tar
ROOT=''

# root_missing: empty when a root can be made here, else why not
root_missing() {
	local c
	for c in debootstrap unshare chroot tar flock; do
		command -v "$c" >/dev/null || { echo "needs $c (scripts/install-deps.sh installs it)"; return; }
	done
}

# root_base: the cached base, made if missing or old (one maker at a time: a lock)
root_base() {
	local days=${BB_ROOT_CACHE_DAYS:-30} dir rc
	mkdir -p "$BB_ROOT_CACHE/archives" || return 1
	(
		flock 9
		if [ -s "$BB_ROOT_BASE" ] && [ -z "$(find "$BB_ROOT_BASE" -mtime "+$days")" ]; then
			exit 0
		fi
		dir=$(mktemp -d /var/tmp/bbroot-base.XXXXXX) || exit 1
		echo "# making the base root: debootstrap $BB_ROOT_SUITE from $BB_ROOT_MIRROR (once; cached in $BB_ROOT_CACHE)"
		# debootstrap mounts /proc and /sys in the root while it works: in a mount namespace
		# of its own those mounts cannot outlive it, whatever happens
		unshare --mount --propagation private -- debootstrap --variant=minbase \
			--include="$BB_ROOT_INCLUDE" "$BB_ROOT_SUITE" "$dir" "$BB_ROOT_MIRROR" \
			>"$BB_ROOT_CACHE/debootstrap.log" 2>&1
		rc=$?
		if [ "$rc" -eq 0 ]; then
			chroot "$dir" apt-get clean &&
				tar -C "$dir" -cf "$BB_ROOT_BASE.tmp" . && mv "$BB_ROOT_BASE.tmp" "$BB_ROOT_BASE"
			rc=$?
		else
			tail -n 5 "$BB_ROOT_CACHE/debootstrap.log" | sed 's/^/#   /'
		fi
		rm -rf --one-file-system "$dir"
		exit "$rc"
	) 9>"$BB_ROOT_CACHE/lock"
}

# root_make: a fresh root from the base in $ROOT, with apt's sources as this machine's
# Debian ones (bookworm, its updates and security) and the archives kept from earlier roots
root_make() {
	root_base || return 1
	ROOT=$(mktemp -d /var/tmp/bbroot.XXXXXX) || return 1
	chmod 755 "$ROOT"
	tar -C "$ROOT" -xf "$BB_ROOT_BASE" || return 1
	cp /etc/resolv.conf "$ROOT/etc/resolv.conf"
	cat >"$ROOT/etc/apt/sources.list" <<-EOF
	deb $BB_ROOT_MIRROR $BB_ROOT_SUITE main
	deb $BB_ROOT_MIRROR $BB_ROOT_SUITE-updates main
	deb ${BB_ROOT_MIRROR%/debian}/debian-security $BB_ROOT_SUITE-security main
	EOF
	# no service starts in a root (nothing runs systemd there)
	printf '#!/bin/sh\nexit 101\n' >"$ROOT/usr/sbin/policy-rc.d"
	chmod 755 "$ROOT/usr/sbin/policy-rc.d"
	find "$BB_ROOT_CACHE/archives" -maxdepth 1 -name '*.deb' -exec cp -t "$ROOT/var/cache/apt/archives" {} +
	return 0
}

# root_keep_archives: what apt fetched into the root, kept for the next one
root_keep_archives() {
	[ -n "$ROOT" ] || return 0
	find "$ROOT/var/cache/apt/archives" -maxdepth 1 -name '*.deb' ! -name 'bloomblock*' \
		-exec cp -n -t "$BB_ROOT_CACHE/archives" {} + 2>/dev/null
	return 0
}

# in_root CMD...: CMD in the root (see above), its environment plain and non-interactive
in_root() {
	unshare --mount --propagation private -- sh -c '
		r=$1; shift
		mount -t proc proc "$r/proc" &&
		mount -t sysfs sysfs "$r/sys" &&
		mount --bind /sys/fs/bpf "$r/sys/fs/bpf" &&
		mount --rbind /dev "$r/dev" || exit 125
		exec chroot "$r" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
			DEBIAN_FRONTEND=noninteractive LANG=C.UTF-8 "$@"' sh "$ROOT" "$@"
}

# root_mounts: how many mounts there are under $ROOT (none, outside in_root)
root_mounts() { awk -v r="$ROOT/" 'index($5 "/", r) == 1' /proc/self/mountinfo | wc -l; }

# root_remove: the root gone, unless something is mounted under it (then it is said and kept)
root_remove() {
	case $ROOT in /var/tmp/bbroot.?*) ;; *) return 0 ;; esac
	if [ "$(root_mounts)" -ne 0 ]; then
		echo "# $ROOT: something is still mounted under it; not removed"
		return 1
	fi
	rm -rf --one-file-system "$ROOT"
	ROOT=''
}
