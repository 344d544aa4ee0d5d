// End-to-end checks of `mcpvalidate proxy` in front of published MCP servers that are not
// ours and not Go (@modelcontextprotocol/server-everything, server-memory and
// server-filesystem, pinned in package.json), driven over stdio by the official MCP
// TypeScript SDK client, each server once direct and once through the proxy:
//   - the tool list through the proxy equals the list direct;
//   - every valid call gets the same answer through the proxy as direct;
//   - every invalid call is refused through the proxy with our message and the violations
//     in _meta, and never reaches the server (no entity created, no file written);
//   - what the server itself answered to the same invalid call, direct, is printed as a
//     Markdown table (docs/proxy.md's).
//
// Then server-everything over streamable HTTP, with the same checks: its streamableHttp mode
// has no setting for its address and listens on every interface, so it runs under the
// preload loopback.cjs, which binds it to 127.0.0.1 (checked: the socket's own address, and
// every other address of this machine refused at its port) and records each JSON-RPC
// message POSTed to it; the record shows that the invalid calls through the proxy never
// reached it, and that the same calls direct did. The proxy runs as
// `mcpvalidate proxy -upstream URL -listen 127.0.0.1:0`. (server-memory and
// server-filesystem have no HTTP mode.)
//
// With server-everything, over stdio and over streamable HTTP, task-augmented calls of its
// task tool simulate-research-query (execution.taskSupport "required") with the SDK's
// client.experimental.tasks.callToolStream: through the proxy an invalid one is refused
// with JSON-RPC error -32602, the refusal's text its message and the violations its data
// (under the 2025-11-25 tasks the client reads any result as the task it asked for), and
// over HTTP never reaches the server; a valid one makes its task and gets its result. (The
// SDK and server-everything speak 2025-11-25 at most; the proxy's answers to 2026-07-28
// are tested in Go, guard/proxy/guard_test.go.)
//
// Then over streamable HTTP on 127.0.0.1: the Go test server of guard/proxy/interop/testdata/rawserver
// (go-sdk, raw tools that validate nothing and count their calls), direct and through
// `mcpvalidate proxy -upstream URL -listen 127.0.0.1:0`, with the same checks, and the
// server's own count showing that only the valid calls ran.
//
// Then elicit-server.mjs, a server that asks for the user's age with a form elicitation and
// trusts the answer, over stdio and over streamable HTTP, the TypeScript client answering:
// through the proxy, an answer breaking the requestedSchema reaches the server as a -32602
// error, a valid one as it was.
//
// Usage: node e2e.mjs /path/to/mcpvalidate [/path/to/rawserver]
//
// It exits 0 when every check passes and 1 naming the failed checks. Every server it
// starts is stopped (the SDK's transport closes its stdin, then signals it; the HTTP servers
// are signalled, server-everything's whole process group), and their ports are checked
// closed. No check reads the clock; one safety net turns a hang into a failure after
// GLOBAL_TIMEOUT_MS.

import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { spawn } from 'node:child_process';
import readline from 'node:readline';

const GLOBAL_TIMEOUT_MS = Number(process.env.E2E_GLOBAL_TIMEOUT_MS) || 300_000;
const REQUEST_OPTIONS = { timeout: GLOBAL_TIMEOUT_MS };
const META_KEY = 'com.github.mcpvalidate/violations';

const here = path.dirname(fileURLToPath(import.meta.url));
const serverJS = (name) => path.join(here, 'node_modules', '@modelcontextprotocol', name, 'dist', 'index.js');

const bin = process.argv[2];
if (!bin || !existsSync(bin)) {
  console.error('usage: node e2e.mjs /path/to/mcpvalidate');
  process.exit(2);
}
// Every process started here, but those of the SDK's stdio transport, which stops its own:
// killed, with its process group when it has one, if this process ends first.
const children = new Set();
process.on('exit', () => {
  for (const child of children) {
    try {
      process.kill(child.group ? -child.proc.pid : child.proc.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
});
const safety = setTimeout(() => {
  console.error(`e2e: no end after ${GLOBAL_TIMEOUT_MS} ms: a hang`);
  process.exit(1);
}, GLOBAL_TIMEOUT_MS);

const work = mkdtempSync(path.join(tmpdir(), 'mcpvalidate-e2e-proxy-'));
const files = path.join(work, 'files');
mkdirSync(files);
writeFileSync(path.join(files, 'a.txt'), 'one\ntwo\nthree\n');

// The servers: how to start each (a fresh memory file for each run, one shared directory
// that only the invalid calls would write to), its valid calls, its invalid calls, and
// what shows that an invalid call did not reach it.
const servers = [
  {
    name: 'server-everything',
    args: () => [serverJS('server-everything'), 'stdio'],
    valid: [
      ['echo', { message: 'hello' }],
      ['get-sum', { a: 1, b: 2.5 }],
      ['get-annotated-message', { messageType: 'success' }],
    ],
    invalid: [
      ['echo', {}, "missing required property 'message'"],
      ['echo', { message: 42 }, "property 'message' must be string"],
      ['get-sum', { a: '1', b: 2 }, "property 'a' must be number"],
      ['get-annotated-message', { messageType: 'warning' }, "property 'messageType' must be one of"],
    ],
  },
  {
    name: 'server-memory',
    args: () => [serverJS('server-memory')],
    env: (run) => ({ MEMORY_FILE_PATH: path.join(work, `memory-${run}.jsonl`) }),
    valid: [
      ['create_entities', { entities: [{ name: 'Ada', entityType: 'person', observations: ['wrote notes'] }] }],
      ['search_nodes', { query: 'Ada' }],
      ['read_graph', {}],
    ],
    invalid: [
      ['create_entities', { entities: [{ name: 'Bob', entityType: 'person' }] }, "missing required property 'entities[0].observations'"],
      ['create_entities', { entities: [{ name: 'Cy', entityType: 'person', observations: 'likes tea' }] }, 'must be array'],
      ['create_relations', { relations: [{ from: 'Ada', to: 'Bob' }] }, "missing required property 'relations[0].relationType'"],
      ['delete_entities', { entityNames: 'Ada' }, "property 'entityNames' must be array"],
    ],
    // Through the proxy, none of the invalid calls created anything: Ada alone.
    reached: async (client) => {
      const graph = await call(client, 'read_graph', {});
      return !graph.content[0].text.includes('Bob') && !graph.content[0].text.includes('"Cy"') ? null : 'an entity of an invalid call exists';
    },
  },
  {
    name: 'server-filesystem',
    args: () => [serverJS('server-filesystem'), files],
    valid: [
      ['list_directory', { path: files }],
      ['read_text_file', { path: path.join(files, 'a.txt'), head: 2 }],
      ['list_allowed_directories', {}],
    ],
    invalid: [
      ['write_file', { path: path.join(files, 'b.txt') }, "missing required property 'content'"],
      ['write_file', { path: path.join(files, 'c.txt'), content: 42 }, "property 'content' must be string"],
      ['read_text_file', { path: path.join(files, 'a.txt'), head: '2' }, "property 'head' must be number"],
      ['list_directory_with_sizes', { path: files, sortBy: 'date' }, "property 'sortBy' must be one of"],
    ],
    reached: async () => (existsSync(path.join(files, 'b.txt')) || existsSync(path.join(files, 'c.txt')) ? 'an invalid write_file wrote its file' : null),
  },
];

async function connect(command, args, env) {
  const client = new Client({ name: 'mcpvalidate-e2e-proxy', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command, args, env: { ...process.env, ...env }, stderr: 'ignore' }));
  return client;
}

async function call(client, name, args) {
  return client.callTool({ name, arguments: args }, undefined, REQUEST_OPTIONS);
}

// outcome is what a server answered to a call: its text, or the JSON-RPC error.
async function outcome(client, name, args) {
  try {
    const res = await call(client, name, args);
    const text = (res.content ?? []).map((c) => c.text ?? `[${c.type}]`).join(' ');
    return { isError: !!res.isError, text, meta: res._meta };
  } catch (err) {
    return { error: true, text: `JSON-RPC error ${err.code}: ${err.message}` };
  }
}

// The task tool of server-everything, its invalid task-augmented calls with what the
// refusal names, and a valid one.
const TASK_TOOL = 'simulate-research-query';
const invalidTasks = [
  [{ topic: 42 }, "property 'topic' must be string"],
  [{}, "missing required property 'topic'"],
];
const validTask = { topic: 'validation layers' };

// streamed is what callToolStream yields for a task-augmented call of TASK_TOOL: its
// messages' types, and the final result or error.
async function streamed(client, args) {
  const types = [];
  let last;
  const stream = client.experimental.tasks.callToolStream({ name: TASK_TOOL, arguments: args }, CallToolResultSchema,
    { ...REQUEST_OPTIONS, task: { ttl: 60_000 } });
  for await (const m of stream) {
    types.push(m.type);
    if (m.type === 'result') last = m.result;
    if (m.type === 'error') last = m.error;
  }
  return { types, last };
}

// tasks checks task-augmented calls of server-everything's task tool through the proxy,
// and runs the invalid ones direct too, printing what the server alone answers.
async function tasks(name, direct, through) {
  const check = checker(name);
  for (const [args, want] of invalidTasks) {
    await check(`task-augmented ${TASK_TOOL} ${JSON.stringify(args)}: refused with JSON-RPC error -32602 and the violations`, async () => {
      const { types, last } = await streamed(through, args);
      assert.deepEqual(types, ['error'], JSON.stringify({ types, last }));
      assert.equal(last.code, -32602, String(last));
      assert.ok(last.message.includes('Invalid arguments: ') && last.message.includes(want), last.message);
      assert.equal(last.data?.[META_KEY]?.of, 'arguments', JSON.stringify(last.data));
    });
    const alone = await streamed(direct, args);
    console.log(`     direct, the server answers ${JSON.stringify(args)} with ${alone.types.join(', ')}: ${String(alone.last?.message ?? '').replace(/\s+/g, ' ').slice(0, 120)}`);
  }
  await check(`task-augmented ${TASK_TOOL} ${JSON.stringify(validTask)}: its task runs and gives its result`, async () => {
    const { types, last } = await streamed(through, validTask);
    assert.equal(types[0], 'taskCreated', JSON.stringify(types));
    assert.equal(types.at(-1), 'result', JSON.stringify({ types, last }));
    assert.ok(!last.isError && last.content?.[0]?.text?.includes(validTask.topic), JSON.stringify(last));
  });
}

const failures = [];
const table = [];
// alone holds what each server answered, direct, to each of its invalid calls.
const alone = new Map();

// checker returns the check of a server named name: it runs fn, prints the outcome of
// what, and counts a failure.
function checker(name) {
  return async (what, fn) => {
    try {
      await fn();
      console.log(`ok   ${name}: ${what}`);
    } catch (err) {
      failures.push(`${name}: ${what}`);
      console.log(`FAIL ${name}: ${what}: ${err.message}`);
    }
  };
}

// exercise runs the checks of server s with a client direct and a client through the proxy.
async function exercise(s, direct, through) {
  const check = checker(s.name);
  await check('the tool list through the proxy equals the list direct', async () => {
    assert.deepEqual(await through.listTools(), await direct.listTools());
  });
  for (const [name, args] of s.valid) {
    await check(`valid ${name} ${JSON.stringify(args)}: the same answer`, async () => {
      assert.deepEqual(await call(through, name, args), await call(direct, name, args));
    });
  }
  for (const [name, args, want] of s.invalid) {
    const label = `${name} ${JSON.stringify(args)}`;
    await check(`invalid ${label}: refused by the proxy`, async () => {
      const got = await outcome(through, name, args);
      assert.equal(got.isError, true, JSON.stringify(got));
      assert.ok(got.text.startsWith('Invalid arguments: ') && got.text.includes(want), got.text);
      assert.equal(got.meta?.[META_KEY]?.of, 'arguments', JSON.stringify(got.meta));
    });
  }
  // A tool the server does not list, as a model might misspell one: refused by the proxy
  // with the JSON-RPC error the MCP specification gives, whatever the server would do.
  const unlisted = s.valid[0][0].toUpperCase();
  await check(`unlisted ${unlisted}: refused by the proxy as Unknown tool`, async () => {
    const got = await outcome(through, unlisted, {});
    assert.ok(got.error && got.text.startsWith('JSON-RPC error -32602: ') && got.text.endsWith(`Unknown tool: ${unlisted}`), got.text);
  });
  if (s.reached) {
    await check('no invalid call reached the server through the proxy', async () => {
      const why = await s.reached(through);
      assert.equal(why, null, why);
    });
  }
  // Then the same invalid calls, direct: what the server does without the proxy.
  const said = [];
  for (const [name, args] of s.invalid) {
    const got = await outcome(direct, name, args);
    said.push(got.error ? got.text : `${got.isError ? 'isError' : 'success'}: ${got.text}`);
  }
  alone.set(s.name, said);
  if (s.reachedDirect) {
    await check('each invalid call, direct, reached the server', async () => {
      const why = await s.reachedDirect();
      assert.equal(why, null, why);
    });
  }
  const same = s.sameAs && alone.get(s.sameAs);
  s.invalid.forEach(([name, args], i) => {
    if (same?.[i] === said[i]) return;
    const shown = (x) => x.replaceAll(files, '/data').replace(/\s+/g, ' ').replaceAll('|', '\\|');
    table.push(`| ${s.name} | \`${name} ${shown(JSON.stringify(args))}\` | ${shown(said[i]).slice(0, 160)} |`);
  });
  if (same) {
    const alike = s.invalid.filter((_, i) => same[i] === said[i]).length;
    console.log(`     ${s.name}: ${alike} of ${said.length} invalid calls answered, direct, as by ${s.sameAs}; any other is a row of the table`);
  }
}

// linted runs `mcpvalidate lint ARGS` and resolves with its exit status and stdout.
function linted(args, env) {
  const proc = spawn(bin, ['lint', ...args], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...env } });
  const child = { proc, group: false };
  children.add(child);
  let out = '';
  proc.stdout.on('data', (b) => { out += b; });
  return new Promise((resolve) => proc.on('close', (code) => {
    children.delete(child);
    resolve({ code, out });
  }));
}

// lintSays checks that `mcpvalidate lint -target T` of a server lists every tool a client
// lists, each of which the target rejects (none of these servers' tools is closed with
// additionalProperties false, which the strict targets need; each has $schema, which Gemini's
// parameters do not take).
async function lintSays(check, target, args, env, client) {
  await check(`lint -target ${target} ${args[0]}: every tool listed, each rejected`, async () => {
    const { tools } = await client.listTools();
    const { code, out } = await linted(['-target', target, ...args], env);
    assert.equal(code, 1, out);
    const n = tools.length;
    assert.ok(out.endsWith(`\n${n} tools: ${n} with findings, ${n} that ${target} rejects\n`), out);
  });
}

for (const s of servers) {
  const direct = await connect('node', s.args(), s.env?.('direct'));
  const through = await connect(bin, ['proxy', '--', 'node', ...s.args()], s.env?.('through'));
  try {
    const check = checker(s.name);
    await lintSays(check, 'openai-strict', ['--', 'node', ...s.args()], s.env?.('lint'), direct);
    await exercise(s, direct, through);
    if (s.name === 'server-everything') {
      await tasks(s.name, direct, through);
    }
  } finally {
    await through.close();
    await direct.close();
  }
}

// started spawns cmd and resolves with the process and the first match of pattern in the
// lines of its stream (stdout or stderr), which it goes on reading. With group, the
// process leads a process group of its own, and stop signals the whole group.
function started(cmd, args, stream, pattern, { env, group = false, stdio = ['pipe', 'pipe', 'pipe'] } = {}) {
  const proc = spawn(cmd, args, { stdio, env: { ...process.env, ...env }, detached: group });
  const child = { proc, group };
  children.add(child);
  const exited = new Promise((resolve) => proc.on('exit', resolve)).then((code) => children.delete(child) && code);
  const stop = (signal = 'SIGTERM') => {
    process.kill(group ? -proc.pid : proc.pid, signal);
    return exited;
  };
  return new Promise((resolve, reject) => {
    const lines = readline.createInterface({ input: proc[stream] });
    lines.on('line', (line) => {
      const m = line.match(pattern);
      if (m) resolve({ proc, match: m[1], exited, stop });
    });
    proc.on('exit', (code) => reject(new Error(`${cmd} exited (${code}) before it listened`)));
  });
}

async function connectHTTP(url) {
  const client = new Client({ name: 'mcpvalidate-e2e-proxy', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

// refusal connects to host:port and resolves with the error's code, or with null when
// something accepted the connection.
function refusal(host, port) {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    socket.on('connect', () => {
      socket.destroy();
      resolve(null);
    });
    socket.on('error', (err) => resolve(err.code ?? err.message));
  });
}

// loopbackOnly checks that addr (host:port) is 127.0.0.1 and that no other address of this
// machine accepts a connection at its port; it returns how many others it tried.
async function loopbackOnly(addr) {
  const [host, port] = [addr.slice(0, addr.lastIndexOf(':')), Number(addr.slice(addr.lastIndexOf(':') + 1))];
  assert.equal(host, '127.0.0.1', `listening on ${addr}`);
  const others = Object.values(networkInterfaces()).flat()
    .filter((a) => !a.internal && !a.address.startsWith('fe80:'))
    .map((a) => a.address);
  for (const other of others) {
    assert.equal(await refusal(other, port), 'ECONNREFUSED', `${other}:${port} accepted a connection`);
  }
  return others.length;
}

// server-everything over streamable HTTP, bound to 127.0.0.1 by loopback.cjs, which
// records every JSON-RPC message POSTed to it in record.
{
  const record = path.join(work, 'everything-http.jsonl');
  const stdio = servers.find((s) => s.name === 'server-everything');
  const recordedCalls = () => (existsSync(record) ? readFileSync(record, 'utf8') : '').split('\n').filter(Boolean)
    .map((line) => JSON.parse(line)).filter((m) => m.method === 'tools/call');
  const times = (calls, [name, args]) => calls.filter((c) => c.tool === name && JSON.stringify(c.arguments) === JSON.stringify(args)).length;
  const s = {
    name: 'server-everything over streamable HTTP',
    sameAs: stdio.name,
    valid: stdio.valid,
    invalid: stdio.invalid,
    // The record holds each valid call twice (direct and through the proxy), and no
    // invalid call.
    reached: async () => {
      const calls = recordedCalls();
      const invalid = stdio.invalid.filter((c) => times(calls, c) > 0);
      if (invalid.length > 0) return `the server received ${JSON.stringify(invalid)}`;
      const valid = stdio.valid.filter((c) => times(calls, c) !== 2);
      if (valid.length > 0 || calls.length !== 2 * stdio.valid.length) return `the server received ${JSON.stringify(calls)}`;
      return null;
    },
    // Sent direct, each invalid call is in the record, once.
    reachedDirect: async () => {
      const calls = recordedCalls();
      const missing = stdio.invalid.filter((c) => times(calls, c) !== 1);
      return missing.length === 0 ? null : `not recorded once each: ${JSON.stringify(missing)}`;
    },
  };
  const check = checker(s.name);
  const server = await started('node', ['--require', path.join(here, 'loopback.cjs'), serverJS('server-everything'), 'streamableHttp'],
    'stderr', /^loopback\.cjs: listening on (\S+)$/, { env: { PORT: '0', MCPVALIDATE_E2E_RECORD: record, MCPVALIDATE_E2E_EXIT_WITH_STDIN: '1' }, group: true, stdio: ['pipe', 'ignore', 'pipe'] });
  const upstream = `http://${server.match}/mcp`;
  let front;
  try {
    await check(`the server listens on 127.0.0.1 only (${server.match})`, async () => {
      const others = await loopbackOnly(server.match);
      console.log(`     ${others} other address(es) of this machine refused at its port`);
    });
    front = await started(bin, ['proxy', '-upstream', upstream, '-listen', '127.0.0.1:0'], 'stderr', /serving http:\/\/(\S+)\/mcp/);
    await check(`the proxy listens on 127.0.0.1 only (${front.match})`, async () => {
      await loopbackOnly(front.match);
    });
    const direct = await connectHTTP(upstream);
    const through = await connectHTTP(`http://${front.match}/mcp`);
    try {
      await lintSays(check, 'gemini', ['-upstream', upstream], {}, direct);
      await exercise(s, direct, through);
      await tasks(s.name, direct, through);
      await check(`no invalid task-augmented call reached the server through the proxy; direct, each did`, async () => {
        const calls = recordedCalls();
        const wrong = invalidTasks.filter(([args]) => times(calls, [TASK_TOOL, args]) !== 1);
        assert.deepEqual(wrong, [], `recorded: ${JSON.stringify(calls.filter((c) => c.tool === TASK_TOOL))}`);
      });
    } finally {
      await through.close();
      await direct.close();
    }
  } finally {
    await front?.stop();
    await server.stop();
  }
  await check('stopped, the server and the proxy no longer listen', async () => {
    for (const addr of [server.match, front.match]) {
      assert.equal(await refusal('127.0.0.1', Number(addr.split(':')[1])), 'ECONNREFUSED', `${addr} still accepts connections`);
    }
  });
}

// A server that asks for the user's age with a form elicitation and trusts the answer,
// over stdio and over streamable HTTP, with the TypeScript SDK's client answering: through
// the proxy, content that breaks the requestedSchema reaches the server as a -32602 error,
// never as sent; valid content passes as it was.
{
  let answer;
  const elicitingClient = () => {
    const client = new Client({ name: 'mcpvalidate-e2e-proxy', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
    client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: answer }));
    return client;
  };
  const elicitServer = path.join(here, 'elicit-server.mjs');
  const exercise = async (name, direct, through) => {
    const check = checker(name);
    const told = async (client) => (await call(client, 'ask_age', {})).content[0].text;
    answer = { age: 'old' };
    await check('an answer breaking the requestedSchema: direct, the server got it; through the proxy, -32602', async () => {
      assert.equal(await told(direct), 'received {"age":"old"}');
      assert.equal(await told(through), "error -32602: MCP error -32602: Invalid elicitation response: property 'age' must be integer");
    });
    answer = { age: 42 };
    await check('a valid answer: the server got it, either way', async () => {
      assert.equal(await told(direct), 'received {"age":42}');
      assert.equal(await told(through), 'received {"age":42}');
    });
  };
  {
    const direct = elicitingClient();
    await direct.connect(new StdioClientTransport({ command: 'node', args: [elicitServer], stderr: 'ignore' }));
    const through = elicitingClient();
    await through.connect(new StdioClientTransport({ command: bin, args: ['proxy', '--', 'node', elicitServer], stderr: 'ignore' }));
    try {
      await exercise('elicit-server over stdio', direct, through);
    } finally {
      await through.close();
      await direct.close();
    }
  }
  const server = await started('node', [elicitServer, 'http'], 'stdout', /^listening on (\S+)$/);
  const front = await started(bin, ['proxy', '-upstream', `http://${server.match}/mcp`, '-listen', '127.0.0.1:0'], 'stderr', /serving (http:\/\/\S+\/mcp)/);
  const direct = elicitingClient();
  await direct.connect(new StreamableHTTPClientTransport(new URL(`http://${server.match}/mcp`)));
  const through = elicitingClient();
  await through.connect(new StreamableHTTPClientTransport(new URL(front.match)));
  try {
    await exercise('elicit-server over streamable HTTP', direct, through);
  } finally {
    await through.close();
    await direct.close();
    await front.stop();
    await server.stop();
  }
}

const rawserver = process.argv[3];
if (rawserver) {
  const s = { name: 'rawserver over streamable HTTP' };
  const check = checker(s.name);
  const server = await started(rawserver, ['-http', '127.0.0.1:0'], 'stdout', /^(127\.0\.0\.1:\d+)$/);
  const upstream = `http://${server.match}/mcp`;
  const front = await started(bin, ['proxy', '-upstream', upstream, '-listen', '127.0.0.1:0'], 'stderr', /serving (http:\/\/\S+\/mcp)/);
  const direct = await connectHTTP(upstream);
  const through = await connectHTTP(front.match);
  try {
    await check('the tool list through the proxy equals the list direct', async () => {
      assert.deepEqual(await through.listTools(), await direct.listTools());
    });
    for (const args of [{ location: 'Oslo' }, { location: 'Oslo', days: 7, units: 'c' }]) {
      await check(`valid weather ${JSON.stringify(args)}: the same answer`, async () => {
        assert.deepEqual(await call(through, 'weather', args), await call(direct, 'weather', args));
      });
    }
    for (const [args, want] of [[{}, "missing required property 'location'"], [{ location: 'Oslo', days: '3' }, "property 'days' must be integer"]]) {
      await check(`invalid weather ${JSON.stringify(args)}: refused by the proxy`, async () => {
        const got = await outcome(through, 'weather', args);
        assert.equal(got.isError, true, JSON.stringify(got));
        assert.ok(got.text.startsWith('Invalid arguments: ') && got.text.includes(want), got.text);
        assert.equal(got.meta?.[META_KEY]?.of, 'arguments', JSON.stringify(got.meta));
      });
    }
    await check('only the valid calls reached the server (its own count: 4, two each way)', async () => {
      const got = await outcome(direct, 'calls', {});
      assert.equal(got.text, '4');
    });
  } finally {
    await through.close();
    await direct.close();
    front.proc.kill('SIGTERM');
    server.proc.stdin.end();
    await Promise.all([front.exited, server.exited]);
  }
}

console.log('\nWhat each server answered to the invalid calls, without the proxy:\n');
console.log('| server | call | the server alone |');
console.log('|---|---|---|');
for (const row of table) console.log(row);

clearTimeout(safety);
rmSync(work, { recursive: true, force: true });
if (failures.length > 0) {
  console.log(`\nFAILED: ${failures.join('; ')}`);
  process.exit(1);
}
console.log('\nall passed');
