#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The deploy files, checked without a cluster or a container engine (neither runs
# here): deploy/kubernetes/ passes yamllint and validates against the Kubernetes
# OpenAPI schema with no unknown field (kubernetes-models and TypeScript, from the npm
# registry: tests/deploy/package-lock.json, installed by `npm ci` into a scratch
# directory); the DaemonSet has what the daemon needs (host network, the bpffs and
# state host paths, the unit's four capabilities and not privileged, a liveness probe
# on the port the config serves /metrics on and Prometheus annotations naming it,
# tolerations for every taint, requests and limits); the ConfigMap's config checks and
# its lists build; the Containerfile parses (dockerfile-utils), is Debian 12, runs
# bloomblock run --config as PID 1 in exec form, and its build dependencies resolve.
# Broken copies of each are refused, so each check can fail. TAP output.
set -u
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

for c in yamllint node npm jq; do
	command -v "$c" >/dev/null || skip_all "needs $c (scripts/install-deps.sh installs it)"
done
K8S=$BB_ROOT/deploy/kubernetes
BB_TMP=$(mktemp -d /tmp/bbdeploy.XXXXXX)
trap 'rm -rf "$BB_TMP"' EXIT
NPM=$BB_TMP/npm

# ---- the validators: npm ci of the committed lock file ---------------------------------
mkdir -p "$NPM"
cp "$BB_ROOT"/tests/deploy/{package.json,package-lock.json,validate.mjs} "$NPM"/
t0=$SECONDS
run timeout 600 npm ci --prefix "$NPM" --no-audit --no-fund --loglevel=error
echo "# npm ci took $((SECONDS - t0)) s"
check_rc "npm ci: kubernetes-models, typescript, yaml, dockerfile-utils from the lock file" 0
validate() { (cd "$NPM" && timeout 120 node validate.mjs "$@"); }

# ---- yamllint -----------------------------------------------------------------------------
run yamllint -s -c "$K8S/.yamllint" "$K8S"
check_rc "yamllint passes deploy/kubernetes/ (no warning either: -s)" 0
diag "$out"
sed 's/^  name: bloomblock-config$/  name: bloomblock-config\n  name: again/' "$K8S/10-configmap.yaml" \
	>"$BB_TMP/dup.yaml"
run yamllint -s -c "$K8S/.yamllint" "$BB_TMP/dup.yaml"
check_rc "... and refuses a copy with a duplicate key" 1

# ---- the OpenAPI schema, and no unknown field ---------------------------------------------
run validate k8s "$K8S"/*.yaml
check_rc "every manifest validates against the Kubernetes schema" 0
diag "$out"
check_eq "... the Namespace, the ConfigMap and the DaemonSet, each valid with no unknown field" \
	"$(grep -c '^ok .*: valid, no unknown field$' <<<"$out")" 3
# Broken copies of the DaemonSet, checked in one run (one TypeScript program):
# NAME, the sed expression that breaks it, what the refusal must say
bad_cases=(
	"an unknown field" 's/^\( *\)imagePullPolicy: IfNotPresent/&\n\1imagePullPolcy: Always/'
	"'\"imagePullPolcy\"' does not exist in type 'IContainer'"
	"a wrong type" 's/periodSeconds: 20/periodSeconds: often/'
	'livenessProbe/periodSeconds must be integer'
	"a missing required field" 's/^        - name: bloomblock$/        - image: x/; s/^          image: .*//'
	"must have required property '?name'?"
	"a value outside its enum" 's/type: RollingUpdate/type: Rolling/'
	'updateStrategy/type must be equal to one of the allowed values'
)
bad_files=()
for ((i = 0; i < ${#bad_cases[@]}; i += 3)); do
	sed "${bad_cases[i + 1]}" "$K8S/20-daemonset.yaml" >"$BB_TMP/bad$i.yaml"
	bad_files+=("$BB_TMP/bad$i.yaml")
done
run validate k8s "${bad_files[@]}"
check_rc "the schema check fails on broken copies of the DaemonSet" 1
for ((i = 0; i < ${#bad_cases[@]}; i += 3)); do
	check_match "... refusing ${bad_cases[i]}" "^not ok $BB_TMP/bad$i\.yaml#1 .*${bad_cases[i + 2]}" "$out"
done

# ---- what the DaemonSet must have -----------------------------------------------------------
run validate json "$K8S/20-daemonset.yaml"
ds=$out
pod=$(jq -c '.spec.template.spec' <<<"$ds")
ctr=$(jq -c '.containers[0]' <<<"$pod")
check_eq "DaemonSet: host network (XDP attaches to the node's interfaces)" \
	"$(jq -r .hostNetwork <<<"$pod")" true
check_eq "... not privileged" "$(jq -r '.securityContext.privileged' <<<"$ctr")" false
unit_caps=$(sed -n 's/^CapabilityBoundingSet=//p' "$BB_ROOT/scripts/bloomblock@.service" |
	tr ' ' '\n' | sed 's/^CAP_//' | sort | paste -sd' ')
check_eq "... adds exactly the unit's capabilities ($unit_caps)" \
	"$(jq -r '.securityContext.capabilities.add[]' <<<"$ctr" | sort | paste -sd' ')" "$unit_caps"
check_eq "... and drops all others" "$(jq -c '.securityContext.capabilities.drop' <<<"$ctr")" '["ALL"]'
# mount_of HOSTPATH: where the container mounts the hostPath volume HOSTPATH
mount_of() {
	local vol
	vol=$(jq -r --arg p "$1" '.volumes[] | select(.hostPath.path == $p) | .name' <<<"$pod")
	jq -r --arg v "$vol" '.volumeMounts[] | select(.name == $v) | .mountPath' <<<"$ctr"
}
check_eq "... the host's bpffs at /sys/fs/bpf (the pins outlive the pod)" "$(mount_of /sys/fs/bpf)" \
	/sys/fs/bpf
check_eq "... the host's /run/bloomblock (the state beside the pins)" "$(mount_of /run/bloomblock)" \
	/run/bloomblock
check_eq "... tolerates every taint (runs on every node)" \
	"$(jq -c '[.tolerations[] | select(.operator == "Exists" and .key == null and .effect == null)] | length' <<<"$pod")" 1
check_eq "... requests and limits CPU and memory" \
	"$(jq -r '[.resources.requests.cpu, .resources.requests.memory, .resources.limits.cpu, .resources.limits.memory] | map(. != null) | all' <<<"$ctr")" true
check_eq "... runs bloomblock run --config /etc/bloomblock/bloomblock.conf" \
	"$(jq -r '.args | join(" ")' <<<"$ctr")" "run --config /etc/bloomblock/bloomblock.conf"
vol=$(jq -r '.volumes[] | select(.configMap.name == "bloomblock-config") | .name' <<<"$pod")
check_eq "... the ConfigMap at /etc/bloomblock, no subPath (kubelet updates it in place)" \
	"$(jq -r --arg v "$vol" '.volumeMounts[] | select(.name == $v) |
		"\(.mountPath) \(.subPath // "none")"' <<<"$ctr")" "/etc/bloomblock none"
port=$(jq -r '.ports[] | select(.name == "metrics") | .containerPort' <<<"$ctr")
check_eq "... the liveness probe asks /metrics on the metrics port" \
	"$(jq -r '.livenessProbe.httpGet | "\(.path) \(.port)"' <<<"$ctr")" "/metrics metrics"
check_eq "... Prometheus's scrape annotations name that port and path" \
	"$(jq -r '.template.metadata.annotations | "\(.["prometheus.io/scrape"]) \(.["prometheus.io/port"]) \(.["prometheus.io/path"])"' <<<"$(jq -c .spec <<<"$ds")")" \
	"true $port /metrics"
version=$(dpkg-parsechangelog -l "$BB_ROOT/debian/changelog" -S Version 2>/dev/null)
check_match "... the image is this version's ($version)" ":${version//./\\.}\$" "$(jq -r .image <<<"$ctr")"

# ---- the ConfigMap: its config checks, its lists build ----------------------------------------
run validate json "$K8S/10-configmap.yaml"
cm=$out
mkdir -p "$BB_TMP/etc"
for key in $(jq -r '.data | keys[]' <<<"$cm"); do
	jq -r --arg k "$key" '.data[$k]' <<<"$cm" >"$BB_TMP/etc/$key"
done
check_match "the config serves /metrics on the probe's port, on the node's addresses" \
	"^metrics = 0\\.0\\.0\\.0:$port\$" "$(cat "$BB_TMP/etc/bloomblock.conf")"
check_match "... watches its files (a ConfigMap update is loaded by itself)" '^watch = yes$' \
	"$(cat "$BB_TMP/etc/bloomblock.conf")"
if [ -x "$BB" ]; then
	# as the pod sees it: the ConfigMap's files at /etc/bloomblock, the node's uplink (lo
	# stands for it here), for --check-config checks what run will find on the node
	sed "s|/etc/bloomblock/|$BB_TMP/etc/|; s|^interface = .*|interface = lo|" \
		"$BB_TMP/etc/bloomblock.conf" >"$BB_TMP/pod.conf"
	run "$BB" run --config "$BB_TMP/pod.conf" --check-config
	check_rc "bloomblock run --check-config passes the ConfigMap's config" 0
	diag "$err"
	run "$BB" run --config "$BB_TMP/etc/bloomblock.conf" --check-config
	check_match "... and off the node names each file of the ConfigMap it does not find" \
		'bloomblock\.conf:[0-9]+: allow /etc/bloomblock/allow\.txt: No such file or directory' "$err"
	run "$BB" build "$BB_TMP/etc/blocklist.txt" --allow "$BB_TMP/etc/allow.txt" -o "$BB_TMP/cm.bbf"
	check_rc "... and its list and allowlist build into a filter" 0
	check_match "... every line of the list read, none rejected" '0 rejected' "$err"
else
	tap_skip "the ConfigMap's config and lists" "no $BB (make first)"
fi

# ---- the Containerfile ---------------------------------------------------------------------
CF=$BB_ROOT/Containerfile
run validate containerfile "$CF"
check_rc "the Containerfile parses (dockerfile-utils)" 0
diag "$out"
printf 'FROM debian:12\nRUNN true\n' >"$BB_TMP/Containerfile.bad"
run validate containerfile "$BB_TMP/Containerfile.bad"
check_rc "... and a broken one does not" 1
check_match "... named" 'Unknown instruction: RUNN' "$out"
check_eq "every stage is Debian 12" "$(grep -E '^FROM ' "$CF" | grep -cvE '^FROM debian:12(-slim)?( |$)')" 0
check_match "PID 1 is bloomblock itself (exec form, so SIGTERM reaches it)" \
	'^ENTRYPOINT \["/usr/sbin/bloomblock"\]$' "$(cat "$CF")"
check_match "... running bloomblock run --config /etc/bloomblock/bloomblock.conf" \
	'^CMD \["run", "--config", "/etc/bloomblock/bloomblock.conf"\]$' "$(cat "$CF")"
check_match "... installed from the package the build stage made" \
	'apt-get install .*/tmp/deb/bloomblock_\*\.deb' "$(sed -e ':a' -e '/\\$/{N;s/\\\n//;ba}' "$CF")"
check_match ".dockerignore keeps build outputs out of the context" '^\.output$' \
	"$(cat "$BB_ROOT/.dockerignore")"
if [ "$(id -u)" = 0 ]; then
	run apt-get build-dep -s "$BB_ROOT/"
	check_rc "the build stage's apt-get build-dep resolves debian/control on Debian 12 (-s)" 0
	diag "$(tail -n 5 <<<"$err")"
else
	tap_skip "apt-get build-dep -s" "needs root"
fi

tap_done
