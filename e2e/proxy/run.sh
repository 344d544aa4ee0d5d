#!/usr/bin/env bash
# End-to-end checks of `mcpvalidate proxy` in front of published MCP servers from npm
# (e2e/proxy/package.json pins them and the TypeScript SDK client), over stdio and, for
# server-everything, streamable HTTP on 127.0.0.1 (bound there by the preload loopback.cjs),
# with the TypeScript SDK's client (e2e.mjs) and the Go SDK's (guard/proxy/interop/npm_test.go,
# TestNPMServers and TestNPMServersHTTP). Needs go, node (>= 20) and npm; node_modules is
# installed here with `npm ci`, with npm's cache in a temporary directory that is removed
# at the end.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
tmp="$(mktemp -d "${TMPDIR:-/tmp}/mcpvalidate-e2e-proxy.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT

# Each built from its own directory: the same whether it is a module of its own or not.
(cd "$root/cmd/mcpvalidate" && GOWORK=off go build -o "$tmp/mcpvalidate" .) # a module out of go.work
(cd "$root/guard/proxy/interop" && go build -o "$tmp/rawserver" ./testdata/rawserver)
(cd "$here" && npm_config_cache="$tmp/npm-cache" npm ci --no-audit --no-fund)
(cd "$here" && node e2e.mjs "$tmp/mcpvalidate" "$tmp/rawserver")
# The same servers with the Go SDK's client, direct, through the proxy and wrapped by
# gosdk's ClientSession, and the TypeScript client against a session-less upstream; -run names the tests, and the check
# after it that each ran rather than skipped.
(cd "$root/guard/proxy/interop" && MCPVALIDATE_E2E_NODE_MODULES="$here/node_modules" go test -count=1 -timeout 10m -run '^(TestNPMServers(HTTP)?|TestNPMClientSession|TestHTTPTypeScriptSessionlessClients)$' -v . | tee "$tmp/go-test.out")
for name in TestNPMServers TestNPMServersHTTP TestNPMClientSession TestHTTPTypeScriptSessionlessClients; do
  grep -q "^--- PASS: $name " "$tmp/go-test.out" || { echo "run.sh: $name did not pass"; exit 1; }
done
