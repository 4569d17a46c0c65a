#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build the Debian package (debian/) out of tree and check it with lintian:
#   scripts/build-deb.sh [OUTDIR]        (make deb: OUTDIR is .output/deb)
# The source tree (what git tracks, and files git does not ignore) is copied to
# OUTDIR/build/bloomblock-VERSION, so dpkg-buildpackage's own outputs (written to
# the parent of the tree it builds) and its clean step stay out of the work tree.
# Leaves OUTDIR/bloomblock_VERSION_ARCH.deb (and the -dbgsym package), OUTDIR/build.log
# and OUTDIR/lintian.txt;
# prints the .deb's path last. Exit 1 when the build fails or lintian reports an
# error. DEB_JOBS (2) is the build's parallelism; the project's tests are not run in
# the package build (they need root, bpffs and network namespaces: make test).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${1:-$ROOT/.output/deb}
JOBS=${DEB_JOBS:-2}

for c in dpkg-buildpackage dpkg-parsechangelog lintian dh; do
	command -v "$c" >/dev/null || {
		echo "build-deb.sh: needs $c (scripts/install-deps.sh installs it)" >&2
		exit 1
	}
done

mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
VERSION=$(dpkg-parsechangelog -l "$ROOT/debian/changelog" -S Version)
ARCH=$(dpkg --print-architecture)
DEB=$OUT/bloomblock_${VERSION}_${ARCH}.deb
# the package's version is the program's: bloomblock -V must say the same
if ! grep -q "define BB_VERSION \"${VERSION%%-*}\"" "$ROOT/user/main.c"; then
	echo "build-deb.sh: debian/changelog says $VERSION, user/main.c's BB_VERSION differs" >&2
	exit 1
fi

BUILD=$OUT/build
rm -rf "$BUILD"
mkdir -p "$BUILD/bloomblock-$VERSION"
if git -C "$ROOT" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	git -C "$ROOT" ls-files -z --cached --others --exclude-standard |
		tar -C "$ROOT" --null -T - --ignore-failed-read -cf - 2>/dev/null |
		tar -C "$BUILD/bloomblock-$VERSION" -xf -
else
	tar -C "$ROOT" --exclude='./.output*' --exclude=./bloomblock --exclude=./.git -cf - . |
		tar -C "$BUILD/bloomblock-$VERSION" -xf -
fi

echo "build-deb.sh: building bloomblock $VERSION ($ARCH) in $BUILD (log: $OUT/build.log)"
rm -f "$DEB"
if ! (cd "$BUILD/bloomblock-$VERSION" &&
	DEB_BUILD_OPTIONS="nocheck parallel=$JOBS" dpkg-buildpackage -us -uc -b) >"$OUT/build.log" 2>&1; then
	tail -n 30 "$OUT/build.log" >&2
	echo "build-deb.sh: dpkg-buildpackage failed (all of it in $OUT/build.log)" >&2
	exit 1
fi
mv "$BUILD/bloomblock_${VERSION}_${ARCH}.deb" "$DEB"
mv "$BUILD"/bloomblock-dbgsym_* "$OUT"/ 2>/dev/null || true	# the debug symbols, if made
rm -rf "$BUILD"

# lintian: no error; the warnings kept are listed, with why, in docs/PACKAGING.md
set +e
lintian --fail-on error --display-level '>=warning' "$DEB" >"$OUT/lintian.txt" 2>&1
lrc=$?
set -e
echo "build-deb.sh: lintian: $(grep -c '^E: ' "$OUT/lintian.txt") errors," \
	"$(grep -c '^W: ' "$OUT/lintian.txt") warnings ($OUT/lintian.txt)"
sed 's/^/    /' "$OUT/lintian.txt"
if [ "$lrc" -ne 0 ]; then
	echo "build-deb.sh: lintian failed (exit $lrc)" >&2
	exit 1
fi
echo "$DEB"
