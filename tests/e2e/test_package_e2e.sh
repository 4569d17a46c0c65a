#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The Debian package, end to end: scripts/build-deb.sh (make deb) builds it out of tree
# and lintian passes it (no error; every warning is one docs/PACKAGING.md keeps, with
# why); what it holds; `apt-get install ./bloomblock_*.deb` into a throw-away Debian 12
# root (root_lib.sh: debootstrap from Debian's registry, cached), never into this
# machine; the root's /usr/sbin/bloomblock dropping a listed source and passing an
# unlisted one on a veth between two namespaces, as the demo does, with its stats; the
# installed man page and unit (systemd-analyze verify, in the root: no systemd runs
# there, so the unit is verified, not started); `dpkg -r` keeping the config, `dpkg -P`
# removing it, and no file the package owned left behind; and this machine as it was:
# no package, file or mount of the test's left on it. TAP output; root (chroot, BPF).
set -u
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/e2e/root_lib.sh
. "$(dirname "$0")/root_lib.sh"

[ "$(id -u)" = 0 ] || skip_all "needs root (chroot, dpkg, BPF)"
for c in dpkg-buildpackage dh lintian dpkg-deb; do
	command -v "$c" >/dev/null || skip_all "needs $c (scripts/install-deps.sh installs it)"
done
why=$(root_missing)
[ -z "$why" ] && why=$(root_bpf_missing)
[ -z "$why" ] || skip_all "$why"

# what this machine has of bloomblock's before: the same after, whatever happens inside
host_state() {
	dpkg-query -W -f='${db:Status-Abbrev}' bloomblock 2>/dev/null
	for f in /usr/sbin/bloomblock /etc/bloomblock /lib/systemd/system/bloomblock@.service \
		/var/lib/bloomblock /usr/share/man/man8/bloomblock.8.gz; do
		[ -e "$f" ] && echo "$f"
	done
}
HOST_BEFORE=$(host_state)

VERSION=$(dpkg-parsechangelog -l "$BB_ROOT/debian/changelog" -S Version)
ARCH=$(dpkg --print-architecture)
PKG_TMP=$(mktemp -d /tmp/bbpkg.XXXXXX)
chmod 755 "$PKG_TMP"
package_cleanup() {
	cleanup
	root_keep_archives
	root_remove
	case $PKG_TMP in /tmp/bbpkg.?*) rm -rf "$PKG_TMP" ;; esac
	return 0
}
trap package_cleanup EXIT
trap 'exit 130' INT TERM

# ---- the build and lintian ------------------------------------------------------------
t0=$SECONDS
run env DEB_JOBS=2 "$BB_ROOT/scripts/build-deb.sh" "$PKG_TMP"
check_rc "build-deb.sh (make deb): dpkg-buildpackage -b out of tree, lintian passes" 0
echo "# built in $((SECONDS - t0)) s"
DEB=$PKG_TMP/bloomblock_${VERSION}_${ARCH}.deb
check_eq "... leaving bloomblock_VERSION_ARCH.deb" "$(tail -n 1 <<<"$out")" "$DEB"
[ -f "$DEB" ] || bail "no package to test (build log: $(tail -n 20 "$PKG_TMP/build.log" 2>/dev/null))"
lint=$(cat "$PKG_TMP/lintian.txt")
check_eq "lintian: no error" "$(grep -c '^E: ' <<<"$lint")" 0
unlisted=''
for tag in $(sed -n 's/^W: [^ ]*: \([^ ]*\).*/\1/p' <<<"$lint" | sort -u); do
	grep -q -- "$tag" "$BB_ROOT/docs/PACKAGING.md" || unlisted="$unlisted $tag"
done
check_eq "lintian: every warning is one docs/PACKAGING.md keeps, with its reason" "$unlisted" ""

# ---- what it holds ---------------------------------------------------------------------
contents=$(dpkg-deb -c "$DEB" | awk '{ print $NF }')
for f in ./usr/sbin/bloomblock ./usr/share/man/man8/bloomblock.8.gz \
	./lib/systemd/system/bloomblock@.service ./etc/bloomblock/example.conf ./var/lib/bloomblock/ \
	./usr/share/doc/bloomblock/copyright ./usr/share/doc/bloomblock/changelog.gz; do
	check_match "the package holds ${f#.}" "^${f//./\\.}\$" "$contents"
done
check_eq "the example config is a conffile" "$(dpkg-deb -I "$DEB" conffiles)" /etc/bloomblock/example.conf
depends=$(dpkg-deb -f "$DEB" Depends)
check_match "Depends: the libraries it links, from shlibs (libbpf, libxxhash, libmicrohttpd)" \
	'libbpf1 .*libmicrohttpd12 .*libxxhash0' "$depends"
check_match "debian/copyright is machine-readable (DEP-5)" \
	'^Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/$' \
	"$(head -n 1 "$BB_ROOT/debian/copyright")"

# ---- installed, in a throw-away root ------------------------------------------------------
t0=$SECONDS
root_make || bail "could not make the Debian 12 root (debootstrap from $BB_ROOT_MIRROR: $BB_ROOT_CACHE/debootstrap.log)"
echo "# the root: $ROOT, made in $((SECONDS - t0)) s"
cp "$DEB" "$ROOT/tmp/"
run in_root apt-get update -q
[ "$rc" = 0 ] || echo "# apt-get update in the root failed (its lists from the base are used): $(tail -n 2 <<<"$err")"
run in_root apt-get install -y -q --no-install-recommends "/tmp/$(basename "$DEB")"
check_rc "apt-get install ./bloomblock_${VERSION}_${ARCH}.deb (in the root; apt brings its libraries)" 0
[ "$rc" = 0 ] || diag "$(tail -n 10 <<<"$out$err")"
[ -x "$ROOT/usr/sbin/bloomblock" ] || bail "not installed: nothing more to test"
check_eq "dpkg: installed" "$(in_root dpkg-query -W -f='${db:Status-Abbrev}' bloomblock)" "ii "
run in_root /usr/sbin/bloomblock -V
check_eq "the installed /usr/sbin/bloomblock is this version" "$out" "bloomblock ${VERSION%%-*}"
check_eq "man bloomblock finds the installed page" "$(in_root man -w bloomblock 2>/dev/null)" \
	/usr/share/man/man8/bloomblock.8.gz
check_match "the installed unit runs /usr/sbin/bloomblock" \
	'^ExecStart=/usr/sbin/bloomblock run --config /etc/bloomblock/%i.conf$' \
	"$(cat "$ROOT/lib/systemd/system/bloomblock@.service")"
run in_root systemd-analyze verify --man=no bloomblock@example.service
check_rc "systemd-analyze verify bloomblock@example.service (the installed unit, in the root)" 0
[ "$rc" = 0 ] || diag "$out$err"
run in_root /usr/sbin/bloomblock run --config /etc/bloomblock/example.conf --check-config
check_match "the installed example config checks (run --check-config), naming the lists it lacks" \
	'example\.conf:[0-9]+: list /etc/bloomblock/lists/\*\.txt: no file matches it' "$err"
check_match "... and the allowlist" \
	'example\.conf:[0-9]+: allow /etc/bloomblock/allow\.txt: No such file or directory' "$err"

# ---- the installed binary on a veth between two namespaces, as the demo does --------------
# $BB: the root's /usr/sbin/bloomblock, run by bb() (lib.sh) in the dut namespace
BB=$PKG_TMP/bloomblock-in-root
printf '#!/usr/bin/env bash\n. %q\nROOT=%q\nin_root /usr/sbin/bloomblock "$@"\n' \
	"$BB_ROOT/tests/e2e/root_lib.sh" "$ROOT" >"$BB"
chmod 755 "$BB"
e2e_begin	# its cleanup runs from package_cleanup
trap package_cleanup EXIT
printf '# package test\n198.51.100.2\n2001:db8:51::2\n' >"$ROOT/tmp/list.txt"	# the root's /tmp
run bb load /tmp/list.txt -i bbd0
check_rc "the root's bloomblock: load LIST -i bbd0" 0
# the unlisted first: its neighbour discovery resolves the peer for both sources
expect_pass "an unlisted IPv4 source passes" 198.51.100.3 198.51.100.1
expect_blocked "a listed IPv4 source is dropped" 198.51.100.2 198.51.100.1
expect_pass "an unlisted IPv6 source passes" 2001:db8:51::3 2001:db8:51::1
expect_blocked "a listed IPv6 source is dropped" 2001:db8:51::2 2001:db8:51::1
check_ge "stats: dropped counts every blocked ping" "$(bb_stat dropped)" "$blocked_tx"
check_match "status names the interface" 'bbd0' "$(bb status)"
run bb unload --all
check_rc "unload --all" 0
expect_pass "... and the listed source passes again" 198.51.100.2 198.51.100.1

# ---- removed, then purged: nothing it owned is left ------------------------------------------
owned=$(in_root dpkg -L bloomblock)
: >"$ROOT/var/lib/bloomblock/feeds.json"	# what a daemon leaves in its state directory
run in_root dpkg -r bloomblock
check_rc "dpkg -r bloomblock" 0
check "... the binary is gone" test ! -e "$ROOT/usr/sbin/bloomblock"
check "... the config stays (a conffile)" test -f "$ROOT/etc/bloomblock/example.conf"
check_eq "... dpkg: removed, its config files kept" \
	"$(in_root dpkg-query -W -f='${db:Status-Abbrev}' bloomblock)" "rc "
run in_root dpkg -P bloomblock
check_rc "dpkg -P bloomblock" 0
check "... the config is gone" test ! -e "$ROOT/etc/bloomblock/example.conf"
check "... the state directory is gone, with what the daemon left there" \
	test ! -e "$ROOT/var/lib/bloomblock"
check_eq "... dpkg knows it no more" \
	"$(in_root dpkg-query -W -f='${db:Status-Abbrev}' bloomblock 2>/dev/null)" ""
left=''
while IFS= read -r p; do
	[ "$p" = /. ] && continue
	[ -e "$ROOT$p" ] || [ -L "$ROOT$p" ] || continue
	# a directory another package owns too (/usr/sbin, /lib/systemd/system) stays
	[ -d "$ROOT$p" ] && in_root dpkg -S "$p" >/dev/null 2>&1 && continue
	left="$left $p"
done <<<"$owned"
check_eq "no file or directory the package owned is left ($(wc -l <<<"$owned") paths)" "$left" ""

# ---- this machine as it was --------------------------------------------------------------------
check_eq "nothing is left mounted under the root" "$(root_mounts)" 0
root_keep_archives
r=$ROOT
root_remove
check "the root is removed" test ! -e "$r"
check_eq "this machine's bloomblock package and files are as they were (${HOST_BEFORE:-none})" \
	"$(host_state)" "$HOST_BEFORE"

tap_done
