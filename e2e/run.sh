#!/usr/bin/env bash
# End-to-end tests of examples/weather with clients nobody here wrote:
#   1. the official MCP TypeScript SDK (e2e/node, pinned in package.json/package-lock.json)
#   2. the official MCP Go SDK (e2e/gosdk, its own Go module)
# each over stdio and over streamable HTTP on 127.0.0.1.
# Needs: go, node (>= 20) and npm; node_modules is installed here with `npm ci`.
# WEATHER_MODFILE, when set, builds the server from that go.mod instead of the checkout's
# (.ci/run: the newest mcp-go supported).
# No step has a time limit of its own: the checks wait for events, and each suite has one
# safety net against a hang (go test -timeout, e2e.mjs's global timeout), far beyond what a
# busy machine needs.
set -euo pipefail

e2e_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root_dir="$(cd "$e2e_dir/.." && pwd)"

tmp="$(mktemp -d "${TMPDIR:-/tmp}/mcpvalidate-e2e.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT

step() { printf '\n==> [%s] %s\n' "$(date +%T)" "$*"; }

step "tool versions"
go version
echo "node $(node --version)"
echo "npm $(npm --version)"

bin="$tmp/weather"
step "building examples/weather -> $bin${WEATHER_MODFILE:+ (-modfile=$WEATHER_MODFILE)}"
(cd "$root_dir" && go build ${WEATHER_MODFILE:+-modfile="$WEATHER_MODFILE"} -o "$bin" ./examples/weather)
go version -m "$bin" | grep -F github.com/mark3labs/mcp-go

step "npm ci in e2e/node"
(cd "$e2e_dir/node" && npm ci --no-audit --no-fund)

# Both suites run even if the first fails; the script fails if either did.
failed=()

step "node e2e/node/e2e.mjs (TypeScript SDK @modelcontextprotocol/sdk $(cd "$e2e_dir/node" && node -p 'JSON.parse(require("fs").readFileSync("node_modules/@modelcontextprotocol/sdk/package.json", "utf8")).version'))"
if ! (cd "$e2e_dir/node" && node e2e.mjs "$bin"); then
  failed+=("node (TypeScript SDK)")
fi

step "go test in e2e/gosdk (Go SDK $(cd "$e2e_dir/gosdk" && go list -m -f '{{.Version}}' github.com/modelcontextprotocol/go-sdk))"
if ! (cd "$e2e_dir/gosdk" && WEATHER_BIN="$bin" go test -count=1 -timeout 5m -v ./...); then
  failed+=("gosdk (Go SDK)")
fi

if [ "${#failed[@]}" -gt 0 ]; then
  step "e2e: FAILED: ${failed[*]}"
  exit 1
fi
step "e2e: all passed"
