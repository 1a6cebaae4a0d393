#!/usr/bin/env bash
# compat.sh runs the real-server tests of the packages that meet the API
# server against each kube-apiserver version testenv can build, and writes
# the matrix (version x area -> pass / FAIL) to compat/results-<versions>.md.
#
#   COMPAT_VERSIONS="1.34 1.37" bash hack/compat.sh
#
# Each version is built once into the cache (minutes on first use).
set -uo pipefail
GO=${GO:-go}
versions=${COMPAT_VERSIONS:-"1.34 1.35 1.36 1.37"}
# COMPAT_AREAS, when set, keeps only the areas whose name contains it.
only=${COMPAT_AREAS:-}
# area | packages
areas=(
  "control plane (testenv)|./testenv"
  "clients and verbs|./client/... ./dynamic ./metadata"
  "discovery and RESTMapper|./discovery"
  "informers (streaming list, paginated list, resumption, 410)|./informer"
  "server-side apply and object helpers|./objects"
  "CRDs|./crd"
  "CRDs from Go types, typed apply, installation|./apischema/... ./apply ./install"
  "leader election|./leaderelection"
  "events recorder|./record"
  "manager and controllers|./manager ./controller"
  "webhooks (admission, conversion)|./webhook/..."
  "labeler and sample controller|./examples/labeler/... ./examples/samplecontroller/..."
  "exec, attach, port-forward, proxy|./podexec ./portforward ./proxy"
  "fake conformance suite (real-server side)|./fake"
  "kubeconfig and credentials|./kubeconfig ./auth"
)
out=compat/results-$(echo $versions | tr " " "_").md
mkdir -p compat/logs
declare -A result
for v in $versions; do
  echo "== kube-apiserver $v: building if needed"
  if ! $GO run ./cmd/kubego controlplane build -version "$v" >"compat/logs/build-$v.log" 2>&1; then
    for a in "${areas[@]}"; do result["$v|${a%%|*}"]="not built"; done
    continue
  fi
  for a in "${areas[@]}"; do
    name=${a%%|*}; pkgs=${a#*|}
    if [[ -n $only && $name != *"$only"* ]]; then result["$v|$name"]="not run"; continue; fi
    log="compat/logs/$v-$(echo "$name" | tr -c 'a-zA-Z0-9' '-' | cut -c1-40).log"
    start=$(date +%s)
    # shellcheck disable=SC2086
    if KUBEGO_APISERVER_VERSION=$v $GO test -count=1 -timeout 20m $pkgs >"$log" 2>&1; then
      r="pass"
    else
      r="**FAIL**"
    fi
    result["$v|$name"]="$r ($(( $(date +%s) - start )) s)"
    echo "   $name: $r"
  done
done
{
  echo "kube-apiserver version x area, $(date -u +%Y-%m-%d), $(go version | cut -d' ' -f3)."
  echo "Produced by \`make compat\` (hack/compat.sh); logs in compat/logs/."
  echo
  printf '| area |'; for v in $versions; do printf ' %s |' "$v"; done; echo
  printf '|---|'; for v in $versions; do printf -- '---|'; done; echo
  for a in "${areas[@]}"; do
    name=${a%%|*}
    printf '| %s |' "$name"
    for v in $versions; do printf ' %s |' "${result["$v|$name"]}"; done
    echo
  done
} >"$out"
cat "$out"
