#!/usr/bin/env bash
# End-to-end tests of the two example servers, which serve the same tools with the same
# answers:
#   - examples/weather (mcp-go and the mcpvalidate middleware)
#   - examples/gosdk-weather (the official Go SDK and mcpvalidate/gosdk)
# each driven by clients nobody here wrote:
#   1. the official MCP TypeScript SDK (e2e/node, pinned in package.json/package-lock.json)
#   2. the official MCP Go SDK (e2e/gosdk, its own Go module)
# each over stdio and over streamable HTTP on 127.0.0.1, with the same expectations.
# Needs: go, node (>= 20) and npm; node_modules is installed here with `npm ci`.
# WEATHER_MODFILE, when set, builds the mcp-go server from that go.mod instead of the
# checkout's (.ci/run: the newest mcp-go supported); the go-sdk server has its own module.
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

# The servers under test: the name each is reported by, and its directory under examples/.
servers=(weather gosdk-weather)
for name in "${servers[@]}"; do
  step "building examples/$name -> $tmp/$name${WEATHER_MODFILE:+ (-modfile=$WEATHER_MODFILE)}"
  if [ "$name" = weather ] && [ -n "${WEATHER_MODFILE:-}" ]; then
    (cd "$root_dir" && GOWORK=off go build -modfile="$WEATHER_MODFILE" -o "$tmp/$name" "./examples/$name")
  else
    (cd "$root_dir" && go build -o "$tmp/$name" "./examples/$name")
  fi
  go version -m "$tmp/$name" | grep -E 'github.com/(mark3labs/mcp-go|modelcontextprotocol/go-sdk)[[:space:]]'
done
if go version -m "$tmp/gosdk-weather" | grep -qF github.com/mark3labs/mcp-go; then
  echo "examples/gosdk-weather must not link mcp-go"; exit 1
fi

step "npm ci in e2e/node"
(cd "$e2e_dir/node" && npm ci --no-audit --no-fund)

ts_sdk=$(cd "$e2e_dir/node" && node -p 'JSON.parse(require("fs").readFileSync("node_modules/@modelcontextprotocol/sdk/package.json", "utf8")).version')
go_sdk=$(cd "$e2e_dir/gosdk" && GOWORK=off go list -m -f '{{.Version}}' github.com/modelcontextprotocol/go-sdk)

# Every suite runs on every server even if one fails; the script fails if any did, naming
# the suite and the server.
failed=()
for name in "${servers[@]}"; do
  bin="$tmp/$name"

  step "[$name] node e2e/node/e2e.mjs (TypeScript SDK @modelcontextprotocol/sdk $ts_sdk)"
  if ! (cd "$e2e_dir/node" && node e2e.mjs "$bin" "$name"); then
    failed+=("node (TypeScript SDK) on $name")
  fi

  step "[$name] go test in e2e/gosdk (Go SDK $go_sdk)"
  if ! (cd "$e2e_dir/gosdk" && WEATHER_BIN="$bin" WEATHER_SERVER="$name" GOWORK=off go test -count=1 -timeout 5m -v ./...); then
    failed+=("gosdk (Go SDK) on $name")
  fi
done

if [ "${#failed[@]}" -gt 0 ]; then
  msg=$(printf '%s; ' "${failed[@]}")
  step "e2e: FAILED: ${msg%; }"
  exit 1
fi
step "e2e: all passed (${servers[*]}; TypeScript SDK and Go SDK clients)"
