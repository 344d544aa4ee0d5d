// End-to-end checks of an example weather MCP server with the official MCP TypeScript SDK
// (@modelcontextprotocol/sdk), over stdio and over streamable HTTP: examples/weather (on
// mcp-go) or examples/gosdk-weather (on the Go SDK), which serve the same tools with the
// same answers, so every check expects the same of both.
//
// Usage: node e2e.mjs /path/to/built/server [name]
//
// The script builds nothing: it is given the path of a built server binary, and the name
// its messages call it by (the binary's file name by default). It starts the
// servers it needs itself (the stdio one through StdioClientTransport, the HTTP one on
// 127.0.0.1 with a free port) and always stops them, on success, failure or timeout.
// It exits 0 when every check passes and 1 (with a message naming the check) otherwise.
//
// No check reads the clock: every wait ends on an event (a reply, the server accepting
// connections or exiting). One safety net, like go test's -timeout, turns a hang into a
// failure after GLOBAL_TIMEOUT_MS, far beyond what a busy machine needs.

import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';

const GLOBAL_TIMEOUT_MS = Number(process.env.E2E_GLOBAL_TIMEOUT_MS) || 300_000; // the whole run

// Requests wait as long as the run may: the SDK's default of 60 s would be a second clock.
const REQUEST_OPTIONS = { timeout: GLOBAL_TIMEOUT_MS };

const VALID_CALL = {
  args: { location: 'Paris', days: 2 },
  text: 'Paris: sunny, 21°c, for the next 2 day(s)',
};

const BAD_CALLS = [
  {
    args: { location: 'Paris', days: 'two' },
    text: "Invalid arguments: property 'days' must be integer",
  },
  {
    args: { days: 2.5, units: 'k', x: 1 },
    text:
      "Invalid arguments: missing required property 'location'; property 'days' must be integer; " +
      "property 'units' must be one of ['c', 'f']; unexpected property 'x'",
  },
  {
    args: { location: 'Paris', days: true },
    text: "Invalid arguments: property 'days' must be integer",
  },
];

// The violations of BAD_CALLS[0] as data, in the result's _meta.
const META_KEY = 'com.github.mcpvalidate/violations';
const BAD_CALL_DATA = {
  of: 'arguments',
  violations: [{ pointer: '/days', kind: 'type', keyword: 'type', types: ['integer'], got: 'string', message: "property 'days' must be integer" }],
  notShown: 0,
};

// station's result is checked against its output schema: Orly's reading matches it;
// Bouvet's, whose sensor is offline, has a null temperature and is withheld.
const GOOD_READING = { args: { id: 'Orly' }, structured: { station: 'Orly', celsius: 14.5 } };
const BAD_READING = {
  args: { id: 'Bouvet' },
  text:
    "The tool failed on the server's side: its result does not match the tool's output schema, so it was withheld. " +
    'The arguments were not the problem, and calling the tool again the same way will not help. ' +
    "The server's operator has been told.",
  data: {
    of: 'result',
    violations: [{ pointer: '/celsius', kind: 'type', keyword: 'type', types: ['number'], got: 'null', message: "property 'structuredContent.celsius' must be number" }],
    notShown: 0,
  },
};

// With -detailed, the server's refusals also say what was sent.
const DETAILED_CALL = {
  args: { loction: 'Paris', days: '2' },
  text:
    "Invalid arguments: missing required property 'location'; unexpected property 'loction' (did you mean 'location'?); " +
    "property 'days' must be integer, not string",
};

const UNKNOWN_TOOL = 'no_such_tool';

// The tools both servers list, as tools/list describes them. The schemas are compared as
// JSON values: the order of members differs (mcp-go builds its inputSchemas from a struct
// and maps, gosdk-weather sends its hand-written text as it is). The annotations are not
// compared: mcp-go's NewTool sends the spec's default hints explicitly, go-sdk sends none,
// which means the same.
const TOOLS = [
  {
    name: 'weather',
    description: 'Weather forecast for a city',
    inputSchema: {
      type: 'object',
      additionalProperties: false,
      required: ['location'],
      properties: {
        location: { type: 'string', description: 'City name' },
        days: { type: 'integer', description: 'Days to forecast' },
        units: { type: 'string', enum: ['c', 'f'], description: 'c for Celsius, f for Fahrenheit' },
      },
    },
  },
  {
    name: 'station',
    description: 'Current reading of a weather station',
    inputSchema: {
      type: 'object',
      additionalProperties: false,
      required: ['id'],
      properties: { id: { type: 'string', description: 'Station name, such as Orly' } },
    },
    outputSchema: {
      type: 'object',
      additionalProperties: false,
      required: ['station', 'celsius'],
      properties: { station: { type: 'string' }, celsius: { type: 'number' } },
    },
  },
];

// ---------------------------------------------------------------------------------------
// Process bookkeeping: every child we (or the SDK) started is killed before we exit.

// Entries are ChildProcess objects (the HTTP servers) and StdioClientTransport objects,
// whose pid getter turns null once their process has exited.
/** @type {Set<import('node:child_process').ChildProcess | {pid: number | null}>} */
const children = new Set();

function killAll() {
  for (const child of children) {
    const pid = child.pid;
    if (pid == null) continue;
    if (child.exitCode != null || child.signalCode != null) continue; // already exited
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  children.clear();
}

process.on('exit', killAll);
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(sig, () => {
    console.error(`e2e(node, ${SERVER}): FAIL: interrupted by ${sig}`);
    killAll();
    process.exit(1);
  });
}

// The server under test, as the messages call it.
const SERVER = process.argv[3] || path.basename(process.argv[2] ?? '');

class CheckError extends Error {}

function fail(message) {
  throw new CheckError(message);
}

function log(message) {
  console.log(`e2e(node, ${SERVER}): ${message}`);
}

// ---------------------------------------------------------------------------------------
// Helpers.

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

function canConnect(port) {
  return new Promise((resolve) => {
    const sock = net.connect({ host: '127.0.0.1', port });
    const done = (ok) => {
      sock.destroy();
      resolve(ok);
    };
    sock.once('connect', () => done(true));
    sock.once('error', () => done(false));
  });
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Starts `bin -http 127.0.0.1:PORT args...` and waits until it accepts TCP connections or exits. */
async function startHttpServer(bin, args) {
  const port = await freePort();
  const addr = `127.0.0.1:${port}`;
  const child = spawn(bin, ['-http', addr, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  let exited = null;
  child.on('exit', (code, signal) => {
    exited = { code, signal };
  });
  let spawnError = null;
  child.on('error', (err) => {
    spawnError = err;
  });

  for (;;) {
    if (spawnError) fail(`could not start ${bin} -http ${addr}: ${spawnError.message}`);
    if (exited) {
      fail(`${bin} -http ${addr} exited early (${JSON.stringify(exited)}); output:\n${output}`);
    }
    if (await canConnect(port)) break;
    await sleep(10); // between attempts, with no deadline
  }
  const stop = async () => {
    if (exited) return;
    const gone = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await gone;
    children.delete(child);
  };
  return { url: `http://${addr}/mcp`, stop, output: () => output };
}

/** Compares two JSON values, whatever the order of their members. */
function sameJSON(a, b) {
  const canon = (v) =>
    Array.isArray(v) ? v.map(canon) : v && typeof v === 'object' ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, canon(v[k])])) : v;
  return JSON.stringify(canon(a)) === JSON.stringify(canon(b));
}

function textOf(result) {
  if (!Array.isArray(result?.content)) {
    fail(`tool result has no content array: ${JSON.stringify(result)}`);
  }
  return result.content
    .filter((c) => c.type === 'text')
    .map((c) => c.text)
    .join('');
}

// ---------------------------------------------------------------------------------------
// The checks, the same for every transport.

async function runChecks(name, client, detailed) {
  const req = REQUEST_OPTIONS;
  const where = (what) => `[${name}] ${what}`;

  if (detailed) {
    const res = await client.callTool({ name: 'weather', arguments: DETAILED_CALL.args }, undefined, req);
    const text = textOf(res);
    if (res.isError !== true || text !== DETAILED_CALL.text) {
      fail(where(`detailed call ${JSON.stringify(DETAILED_CALL.args)}:\n  want ${JSON.stringify(DETAILED_CALL.text)}\n  got  ${JSON.stringify(text)}`));
    }
    log(where(`detailed call ok: ${JSON.stringify(text)}`));
    return;
  }

  // tools/list: membership, not order (both frameworks list by name today, but the order
  // is neither's promise), and the same descriptions and schemas from both servers
  const list = await client.listTools(undefined, req);
  const names = list.tools.map((t) => t.name);
  if (!names.includes('weather')) {
    fail(where(`tools/list does not include "weather": got ${JSON.stringify(names)}`));
  }
  for (const want of TOOLS) {
    const tool = list.tools.find((t) => t.name === want.name);
    if (!tool) fail(where(`tools/list does not include ${JSON.stringify(want.name)}: got ${JSON.stringify(names)}`));
    for (const field of ['description', 'inputSchema', 'outputSchema']) {
      if (!sameJSON(tool[field], want[field])) {
        fail(where(`tool ${want.name}: ${field}:\n  want ${JSON.stringify(want[field])}\n  got  ${JSON.stringify(tool[field])}`));
      }
    }
  }
  log(where(`tools/list: ${JSON.stringify(names)}, descriptions and schemas ok`));

  // valid call
  {
    const res = await client.callTool({ name: 'weather', arguments: VALID_CALL.args }, undefined, req);
    const text = textOf(res);
    if (res.isError) {
      fail(where(`valid call ${JSON.stringify(VALID_CALL.args)} returned isError: ${text}`));
    }
    if (text !== VALID_CALL.text) {
      fail(where(`valid call ${JSON.stringify(VALID_CALL.args)}:\n  want ${JSON.stringify(VALID_CALL.text)}\n  got  ${JSON.stringify(text)}`));
    }
    log(where(`valid call ok: ${JSON.stringify(text)}`));
  }

  // invalid calls: a tool result with isError true and exactly the expected text
  for (const bad of BAD_CALLS) {
    const res = await client.callTool({ name: 'weather', arguments: bad.args }, undefined, req);
    const text = textOf(res);
    if (res.isError !== true) {
      fail(where(`bad call ${JSON.stringify(bad.args)}: isError is ${JSON.stringify(res.isError)}, want true; text ${JSON.stringify(text)}`));
    }
    if (text !== bad.text) {
      fail(where(`bad call ${JSON.stringify(bad.args)}:\n  want ${JSON.stringify(bad.text)}\n  got  ${JSON.stringify(text)}`));
    }
    log(where(`bad call ${JSON.stringify(bad.args)} ok: isError, ${JSON.stringify(text)}`));
  }

  // the violations as data, as this client receives them
  {
    const res = await client.callTool({ name: 'weather', arguments: BAD_CALLS[0].args }, undefined, req);
    const data = res._meta?.[META_KEY];
    if (!sameJSON(data, BAD_CALL_DATA)) {
      fail(where(`bad call _meta[${META_KEY}]:\n  want ${JSON.stringify(BAD_CALL_DATA)}\n  got  ${JSON.stringify(data)}`));
    }
    log(where(`bad call _meta ok: ${JSON.stringify(data)}`));
  }

  // output validation: a matching result passes (this SDK checks it against the tool's
  // outputSchema too); one that breaks it is withheld and replaced by a failure
  {
    const good = await client.callTool({ name: 'station', arguments: GOOD_READING.args }, undefined, req);
    if (good.isError || !sameJSON(good.structuredContent, GOOD_READING.structured)) {
      fail(where(`station ${JSON.stringify(GOOD_READING.args)}: ${JSON.stringify(good)}`));
    }
    const bad = await client.callTool({ name: 'station', arguments: BAD_READING.args }, undefined, req);
    const text = textOf(bad);
    if (bad.isError !== true || text !== BAD_READING.text || bad.structuredContent !== undefined) {
      fail(where(`station ${JSON.stringify(BAD_READING.args)}: want isError, the failure text and no structuredContent; got ${JSON.stringify(bad)}`));
    }
    if (!sameJSON(bad._meta?.[META_KEY], BAD_READING.data)) {
      fail(where(`station ${JSON.stringify(BAD_READING.args)} _meta:\n  want ${JSON.stringify(BAD_READING.data)}\n  got  ${JSON.stringify(bad._meta)}`));
    }
    log(where(`output validation ok: a bad result withheld, ${JSON.stringify(bad._meta[META_KEY])}`));
  }

  // unknown tool: a JSON-RPC error, which callTool throws as an McpError. Its code is
  // -32602 from both frameworks; its message is in their own words (mcp-go: "tool
  // 'no_such_tool' not found: tool not found"; go-sdk: 'unknown tool "no_such_tool"'), so
  // only the code is checked, and the message logged.
  {
    let res;
    try {
      res = await client.callTool({ name: UNKNOWN_TOOL, arguments: {} }, undefined, req);
    } catch (err) {
      if (!(err instanceof McpError)) {
        fail(where(`unknown tool: callTool threw ${err?.name ?? typeof err} (${err?.message ?? err}), want McpError`));
      }
      if (err.code !== ErrorCode.InvalidParams /* -32602 */) {
        fail(where(`unknown tool: McpError code ${err.code}, want -32602 (message ${JSON.stringify(err.message)})`));
      }
      log(where(`unknown tool ok: McpError ${err.code}: ${JSON.stringify(err.message)}`));
      return;
    }
    fail(where(`unknown tool: callTool did not throw; it returned ${JSON.stringify(res)}`));
  }
}

function newClient() {
  return new Client({ name: 'mcpvalidate-e2e-node', version: '0.0.0' });
}

/** Records the protocol version the server answers initialize with (for the log only). */
function watchProtocolVersion(name, transport) {
  // Protocol.connect keeps a handler set before it and calls it for every message.
  transport.onmessage = (msg) => {
    const v = msg?.result?.protocolVersion;
    if (typeof v === 'string' && msg.result.serverInfo) log(`[${name}] negotiated protocol version ${v}`);
  };
}

async function checkStdio(bin, args = []) {
  const name = ['stdio', ...args].join(' ');
  const transport = new StdioClientTransport({ command: bin, args, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (d) => (stderr += d));
  watchProtocolVersion(name, transport);
  const client = newClient();
  try {
    const connecting = client.connect(transport, REQUEST_OPTIONS);
    // The transport spawns the server synchronously in start(); track it at once so that
    // a hang in initialize still ends with the server killed.
    children.add(transport);
    await connecting;
    await runChecks(name, client, args.includes('-detailed'));
  } catch (err) {
    if (stderr) err.message += `\n[${name}] server stderr:\n${stderr}`;
    throw err;
  } finally {
    await client.close().catch(() => {});
    // close() normally ends the server; make sure of it (pid is null once it has exited).
    if (transport.pid != null) {
      try {
        process.kill(transport.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    children.delete(transport);
  }
}

async function checkHttp(bin, args = []) {
  const name = ['http', ...args].join(' ');
  const server = await startHttpServer(bin, args);
  log(`[${name}] server up at ${server.url}`);
  const transport = new StreamableHTTPClientTransport(new URL(server.url), {
    reconnectionOptions: { maxRetries: 0, initialReconnectionDelay: 1000, maxReconnectionDelay: 1000, reconnectionDelayGrowFactor: 1 },
  });
  watchProtocolVersion(name, transport);
  const client = newClient();
  try {
    await client.connect(transport, REQUEST_OPTIONS);
    await runChecks(name, client, args.includes('-detailed'));
  } catch (err) {
    const out = server.output();
    if (out) err.message += `\n[${name}] server output:\n${out}`;
    throw err;
  } finally {
    await transport.terminateSession().catch(() => {});
    await client.close().catch(() => {});
    await server.stop();
  }
}

async function main() {
  const binArg = process.argv[2];
  if (!binArg) fail('usage: node e2e.mjs /path/to/server-binary [name]');
  const bin = path.resolve(binArg);
  if (!existsSync(bin)) fail(`server binary not found: ${bin}`);
  log(`server ${SERVER} (${bin})`);

  // Both transports run even if the first fails, so one run shows every failure.
  const failures = [];
  for (const [name, check] of [
    ['stdio', checkStdio],
    ['streamable HTTP', checkHttp],
    ['stdio -detailed', (b) => checkStdio(b, ['-detailed'])],
    ['streamable HTTP -detailed', (b) => checkHttp(b, ['-detailed'])],
  ]) {
    try {
      await check(bin);
      log(`${name}: all checks passed`);
    } catch (err) {
      const msg = err instanceof CheckError ? err.message : err?.stack ?? String(err);
      console.error(`e2e(node, ${SERVER}): FAIL (${name}): ${msg}`);
      failures.push(name);
    }
  }
  if (failures.length > 0) fail(`failed transports: ${failures.join(', ')}`);
}

const globalTimer = setTimeout(() => {
  console.error(`e2e(node, ${SERVER}): FAIL: global timeout of ${GLOBAL_TIMEOUT_MS} ms reached`);
  killAll();
  process.exit(1);
}, GLOBAL_TIMEOUT_MS);

main().then(
  () => {
    clearTimeout(globalTimer);
    killAll();
    log('PASS (2 transports, 8 checks each, and the detailed wording on both)');
    process.exit(0);
  },
  (err) => {
    clearTimeout(globalTimer);
    killAll();
    console.error(`e2e(node, ${SERVER}): FAIL: ${err instanceof CheckError ? err.message : err?.stack ?? err}`);
    process.exit(1);
  },
);
