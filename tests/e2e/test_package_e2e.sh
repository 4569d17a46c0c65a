#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The Debian package, end to end: scripts/build-deb.sh (make deb) builds it out of tree
# and lintian passes it (no error; every warning is one docs/PACKAGING.md keeps, with
# why); what it holds; `apt-get install ./bloomblock_*.deb` on this machine; the
# installed /usr/sbin/bloomblock dropping a listed source and passing an unlisted one
# on a veth between two namespaces, as the demo does, with its stats; the installed
# unit passing systemd-analyze verify; `dpkg -r` keeping the config, `dpkg -P` removing
# it, and no file the package owned left behind. TAP output; root (apt, dpkg, BPF).
# A bloomblock package already installed here is left alone: the test refuses to run.
set -u
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] || skip_all "needs root (apt-get, dpkg, BPF)"
for c in dpkg-buildpackage dh lintian apt-get dpkg-deb systemd-analyze man; do
	command -v "$c" >/dev/null || skip_all "needs $c (scripts/install-deps.sh installs it)"
done
if dpkg-query -W -f='${db:Status-Abbrev}' bloomblock 2>/dev/null | grep -q '^[a-z][ic]'; then
	bail "a bloomblock package is installed here already: this test installs and purges its own (dpkg -P bloomblock first)"
fi
for f in /usr/sbin/bloomblock /etc/bloomblock/example.conf /lib/systemd/system/bloomblock@.service; do
	[ -e "$f" ] && bail "$f exists (make install?): the package would take it over; remove it first"
done

VERSION=$(dpkg-parsechangelog -l "$BB_ROOT/debian/changelog" -S Version)
ARCH=$(dpkg --print-architecture)
PKG_TMP=$(mktemp -d /tmp/bbpkg.XXXXXX)
chmod 755 "$PKG_TMP"	# apt reads the .deb as its own user
installed=0
package_cleanup() {
	cleanup
	[ "$installed" = 1 ] && dpkg -P bloomblock >/dev/null 2>&1
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

# ---- installed ---------------------------------------------------------------------------
cd "$PKG_TMP" || bail "cd $PKG_TMP"
run apt-get install -y -q -o DPkg::Lock::Timeout=120 "./$(basename "$DEB")"
cd "$BB_ROOT" || bail "cd $BB_ROOT"
installed=1
check_rc "apt-get install ./bloomblock_${VERSION}_${ARCH}.deb" 0
[ -x /usr/sbin/bloomblock ] || bail "not installed: nothing more to test"
check_eq "dpkg: installed" "$(dpkg-query -W -f='${db:Status-Abbrev}' bloomblock)" "ii "
BB=/usr/sbin/bloomblock
run "$BB" -V
check_eq "the installed /usr/sbin/bloomblock is this version" "$out" "bloomblock ${VERSION%%-*}"
check_eq "man bloomblock finds the installed page" "$(man -w bloomblock 2>/dev/null)" \
	/usr/share/man/man8/bloomblock.8.gz
check_match "the installed unit runs /usr/sbin/bloomblock" \
	'^ExecStart=/usr/sbin/bloomblock run --config /etc/bloomblock/%i.conf$' \
	"$(cat /lib/systemd/system/bloomblock@.service)"
run systemd-analyze verify --man=no bloomblock@example.service
check_rc "systemd-analyze verify bloomblock@example.service (the installed unit)" 0
run "$BB" run --config /etc/bloomblock/example.conf --check-config
check_match "the installed example config checks (run --check-config), naming the lists it lacks" \
	'example\.conf:[0-9]+: list /etc/bloomblock/lists/\*\.txt: no file matches it' "$err"
check_match "... and the allowlist" \
	'example\.conf:[0-9]+: allow /etc/bloomblock/allow\.txt: No such file or directory' "$err"

# ---- the installed binary on a veth between two namespaces, as the demo does --------------
e2e_begin	# now that $BB is the installed one; its cleanup runs from package_cleanup
trap package_cleanup EXIT
printf '# package test\n198.51.100.2\n2001:db8:51::2\n' >"$BB_TMP/list.txt"
run bb load "$BB_TMP/list.txt" -i bbd0
check_rc "installed bloomblock: load LIST -i bbd0" 0
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
owned=$(dpkg -L bloomblock)
: >/var/lib/bloomblock/feeds.json	# what a daemon leaves in its state directory
run dpkg -r bloomblock
check_rc "dpkg -r bloomblock" 0
check "... the binary is gone" test ! -e /usr/sbin/bloomblock
check "... the config stays (a conffile)" test -f /etc/bloomblock/example.conf
check_eq "... dpkg: removed, its config files kept" \
	"$(dpkg-query -W -f='${db:Status-Abbrev}' bloomblock)" "rc "
run dpkg -P bloomblock
check_rc "dpkg -P bloomblock" 0
installed=0
check "... the config is gone" test ! -e /etc/bloomblock/example.conf
check "... the state directory is gone, with what the daemon left there" \
	test ! -e /var/lib/bloomblock
check_eq "... dpkg knows it no more" \
	"$(dpkg-query -W -f='${db:Status-Abbrev}' bloomblock 2>/dev/null)" ""
left=''
while IFS= read -r p; do
	[ "$p" = /. ] && continue
	[ -e "$p" ] || [ -L "$p" ] || continue
	# a directory another package owns too (/usr/sbin, /lib/systemd/system) stays
	[ -d "$p" ] && dpkg -S "$p" >/dev/null 2>&1 && continue
	left="$left $p"
done <<<"$owned"
check_eq "no file or directory the package owned is left ($(wc -l <<<"$owned") paths)" "$left" ""

tap_done
