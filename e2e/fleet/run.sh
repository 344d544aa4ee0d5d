#!/usr/bin/env bash
# Replicas of `mcpvalidate proxy` behind Debian's HAProxy, round robin with no stickiness,
# in front of one npm server over streamable HTTP, driven by the TypeScript SDK client
# (fleet.mjs says what it checks; docs/replicas.md what it shows). Needs go, node (>= 20),
# apt-get and dpkg-deb, and the npm packages of e2e/proxy installed (e2e/proxy/run.sh runs
# `npm ci` there; MCPVALIDATE_E2E_NODE_MODULES names another node_modules).
#
# HAProxy is Debian's package, unpacked into the clone's .cache (not installed: no service
# starts), with the packages of the libraries it links that a machine may lack (Lua,
# OpenTracing), found through LD_LIBRARY_PATH. Unpacked once; a later run reuses it.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
tmp="$(mktemp -d "${TMPDIR:-/tmp}/mcpvalidate-e2e-fleet.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT

nm="${MCPVALIDATE_E2E_NODE_MODULES:-$root/e2e/proxy/node_modules}"
if [ ! -d "$nm/@modelcontextprotocol/sdk" ] || [ ! -d "$nm/@modelcontextprotocol/server-everything" ]; then
  echo "run.sh: no SDK or server-everything in $nm: run e2e/proxy/run.sh first (or npm ci in e2e/proxy)"; exit 1
fi
export MCPVALIDATE_E2E_NODE_MODULES="$nm"

hap="$root/.cache/haproxy"
if [ ! -x "$hap/root/usr/sbin/haproxy" ]; then
  mkdir -p "$hap"
  debs=(haproxy liblua5.3-0 libopentracing-c-wrapper0 libopentracing1)
  (cd "$hap" && rm -rf ./*.deb root &&
    { apt-get download -qq "${debs[@]}" 2>/dev/null || { apt-get update -qq && apt-get download -qq "${debs[@]}"; }; } &&
    for deb in ./*.deb; do dpkg-deb -x "$deb" root; done)
fi
LD_LIBRARY_PATH="$(find "$hap/root" -name '*.so*' -printf '%h\n' | sort -u | paste -sd:)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export LD_LIBRARY_PATH
if ldd "$hap/root/usr/sbin/haproxy" | grep 'not found'; then
  echo "run.sh: haproxy's libraries above are missing"; exit 1
fi
"$hap/root/usr/sbin/haproxy" -v | sed -n 1p

(cd "$root/cmd/mcpvalidate" && GOWORK=off go build -o "$tmp/mcpvalidate" .) # a module out of go.work
(cd "$here" && node fleet.mjs "$tmp/mcpvalidate" "$hap/root/usr/sbin/haproxy")
