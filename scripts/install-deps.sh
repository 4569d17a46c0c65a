#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Install every Debian package that bloomblock's build, tests, demo and benchmark need.
# Idempotent: packages already present are left alone.
set -euo pipefail

packages=(
	# build
	make gcc binutils clang llvm pkg-config libbpf-dev libelf-dev zlib1g-dev libxxhash-dev
	libjansson-dev libidn2-dev bpftool liblzma-dev libzstd-dev libpcap-dev libmicrohttpd-dev
	libinih-dev libsystemd-dev libcurl4-openssl-dev libcap-dev libxdp-dev
	libclang-rt-14-dev	# make fuzz: clang's libFuzzer and sanitizer runtimes
	systemd	# systemd-analyze verify on the unit
	cppcheck clang-tidy	# make lint
	# tests, demo
	iproute2 iputils-ping bind9-dnsutils curl openssl nftables ethtool valgrind xdp-tools
	jq util-linux libcap2-bin dnsmasq-base gzip xz-utils zstd tcpdump
	busybox-static	# busybox httpd in the tests; static for the kernel matrix's initramfs
	# the kernel and compiler matrices (scripts/test-kernels.sh, test-compilers.sh)
	qemu-system-x86 kmod cpio
	clang-19	# Debian 12's newest clang
	python3		# the reload test's sender and receiver
	prometheus	# promtool checks the metrics bloomblock prints
	# make deb and its test (docs/PACKAGING.md); the deploy manifests' test
	debhelper dpkg-dev fakeroot lintian
	debootstrap	# the package test's throw-away Debian 12 root (tests/e2e/root_lib.sh)
	yamllint
)
# Node.js and npm validate the Kubernetes manifests (tests/deploy/): Debian's, unless a
# node with its npm is here already (another node package would conflict with them)
command -v npm >/dev/null || packages+=(nodejs npm)

if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps.sh: run as root (apt-get needs it)" >&2
	exit 1
fi

missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
	echo "install-deps.sh: all ${#packages[@]} packages present"
	exit 0
fi

echo "install-deps.sh: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
