// Replicas of `mcpvalidate proxy` behind a real load balancer: Debian's HAProxy, round
// robin with no stickiness, in front of three replicas (`mcpvalidate proxy -output
// -upstream URL -listen 127.0.0.1:PORT -metrics 127.0.0.1:0`), all in front of ONE
// streamable HTTP server, @modelcontextprotocol/server-everything from npm, bound to
// 127.0.0.1 by e2e/proxy/loopback.cjs. Clients of the official TypeScript SDK open their
// sessions through HAProxy, so a session is created through one replica (the server makes
// its Mcp-Session-Id) and its later requests land on any replica, which must learn that
// session's tools itself (it fetches the list when it has not seen it). HAProxy names the
// replica that answered each request in a header, X-Replica, which the clients' fetch reads.
//
// Three rounds of calls on three sessions: a valid call of each of four tools, four
// invalid calls and calls of two tools the server does not list. After the first round the
// replicas' /metrics are scraped, then the replica that holds the first session's GET
// stream is killed (SIGKILL: its counts die with it), and the client opens that stream
// again through another replica; the second round runs without it (HAProxy's connection
// to it fails, and it retries on another replica); it is restarted on the same port, with
// counters from zero, and the third round runs, then a task-augmented call whose task is created, polled and fetched
// through whichever replicas round robin gives. Checked:
//   - every invalid call is refused, whichever replica took it, and each replica took some;
//   - every valid answer equals the answer of the same call made direct to the server;
//   - the replicas' mcpvalidate_calls_total, per replica, tool and outcome, equal what the
//     clients caused on it (from X-Replica): for the killed replica its scrape before the
//     kill plus its scrape at the end, which counts what it took after its restart;
//   - the server never received an invalid call (loopback.cjs records what it received).
// Printed: which replicas a task's requests and the GET streams went through, the repairs
// the replicas counted, and what the server received (the clients list no tools: every
// tools/list is a replica's own, for a session whose list it had not seen or, holding no
// GET stream of the session, could not know to be current).
//
// Usage: node fleet.mjs /path/to/mcpvalidate /path/to/haproxy
// The SDK and server-everything are read from $MCPVALIDATE_E2E_NODE_MODULES, by default
// e2e/proxy/node_modules (which e2e/proxy/run.sh installs). Exits 0 when every check passes,
// 1 naming the failed checks. Every process it starts is stopped, and no check reads the
// clock; one safety net turns a hang into a failure after GLOBAL_TIMEOUT_MS.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';

const GLOBAL_TIMEOUT_MS = Number(process.env.E2E_GLOBAL_TIMEOUT_MS) || 300_000;
const REQUEST_OPTIONS = { timeout: GLOBAL_TIMEOUT_MS };
const META_KEY = 'com.github.mcpvalidate/violations';
const REPLICAS = 3;
const SESSIONS = 3;

const here = path.dirname(fileURLToPath(import.meta.url));
const nodeModules = process.env.MCPVALIDATE_E2E_NODE_MODULES || path.join(here, '..', 'proxy', 'node_modules');
const [bin, haproxy] = process.argv.slice(2);
if (!bin || !existsSync(bin) || !haproxy || !existsSync(haproxy)) {
  console.error('usage: node fleet.mjs /path/to/mcpvalidate /path/to/haproxy');
  process.exit(2);
}
const sdk = (file) => import(pathToFileURL(path.join(nodeModules, '@modelcontextprotocol', 'sdk', 'dist', 'esm', file)).href);
const { Client } = await sdk('client/index.js');
const { StreamableHTTPClientTransport } = await sdk('client/streamableHttp.js');
const { CallToolResultSchema } = await sdk('types.js');

// Every process started here: killed, with its process group when it has one, if this
// process ends first.
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
  console.error(`fleet: no end after ${GLOBAL_TIMEOUT_MS} ms: a hang`);
  process.exit(1);
}, GLOBAL_TIMEOUT_MS);

const failures = [];
const check = async (what, fn) => {
  try {
    await fn();
    console.log(`ok   ${what}`);
  } catch (err) {
    failures.push(what);
    console.log(`FAIL ${what}: ${err.message}`);
  }
};

// started spawns cmd and resolves once every pattern has matched a line of its stderr,
// with the first group of each match; it goes on reading.
function started(cmd, args, patterns, { env, group = false, stdout = 'ignore' } = {}) {
  const proc = spawn(cmd, args, { stdio: ['pipe', stdout, 'pipe'], env: { ...process.env, ...env }, detached: group });
  const child = { proc, group };
  children.add(child);
  const exited = new Promise((resolve) => proc.on('exit', (code, signal) => resolve(code ?? signal))).then((how) => {
    children.delete(child);
    return how;
  });
  const stop = (signal = 'SIGTERM') => {
    try {
      process.kill(group ? -proc.pid : proc.pid, signal);
    } catch {
      // already gone
    }
    return exited;
  };
  const lines = [];
  return new Promise((resolve, reject) => {
    if (patterns.length === 0) resolve({ proc, found: [], exited, stop });
    const found = patterns.map(() => undefined);
    readline.createInterface({ input: proc.stderr }).on('line', (line) => {
      lines.push(line);
      patterns.forEach((p, i) => {
        const m = found[i] === undefined && line.match(p);
        if (m) found[i] = m[1];
      });
      if (found.every((f) => f !== undefined)) resolve({ proc, found, exited, stop });
    });
    proc.on('exit', (code) => reject(new Error(`${cmd} exited (${code}) before it was ready:\n${lines.join('\n')}`)));
  });
}

// freePort is a port of 127.0.0.1 that nothing listens on now.
function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

// accepting resolves once something accepts a connection at 127.0.0.1:port, trying at
// most tries times, 50 ms apart.
async function accepting(port, tries = 600) {
  for (let i = 0; i < tries; i++) {
    const ok = await new Promise((resolve) => {
      const socket = net.connect({ host: '127.0.0.1', port });
      socket.on('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`nothing accepts connections at 127.0.0.1:${port}`);
}

const work = mkdtempSync(path.join(tmpdir(), 'mcpvalidate-e2e-fleet-'));
const record = path.join(work, 'received.jsonl');
const received = () => (existsSync(record) ? readFileSync(record, 'utf8') : '').split('\n').filter(Boolean).map((l) => JSON.parse(l));

// The server, ONE for every replica.
const server = await started('node', ['--require', path.join(here, '..', 'proxy', 'loopback.cjs'),
  path.join(nodeModules, '@modelcontextprotocol', 'server-everything', 'dist', 'index.js'), 'streamableHttp'],
[/^loopback\.cjs: listening on (\S+)$/], { env: { PORT: '0', MCPVALIDATE_E2E_RECORD: record, MCPVALIDATE_E2E_EXIT_WITH_STDIN: '1' }, group: true });
const upstream = `http://${server.found[0]}/mcp`;

// replica starts `mcpvalidate proxy` in front of the server at port (0: any), with
// /metrics on a port of its own.
const replica = async (port) => {
  const r = await started(bin, ['proxy', '-output', '-upstream', upstream, '-listen', `127.0.0.1:${port}`, '-metrics', '127.0.0.1:0'],
    [/serving http:\/\/127\.0\.0\.1:(\d+)\/mcp/, /serving metrics at (http:\/\/127\.0\.0\.1:\d+\/metrics)/]);
  return { ...r, port: Number(r.found[0]), metrics: r.found[1] };
};
const replicas = [];
for (let i = 0; i < REPLICAS; i++) replicas.push(await replica(0));

// HAProxy: round robin, no stickiness, every request balanced on its own; a connection
// that fails (the killed replica) is retried on another replica (redispatch), after
// min(timeout connect, 1 s); timeouts long enough for SSE streams that stay open;
// X-Replica names the replica that answered.
const front = await freePort();
const cfg = path.join(work, 'haproxy.cfg');
writeFileSync(cfg, `global
  maxconn 256
defaults
  mode http
  timeout connect 200ms
  timeout client 10m
  timeout server 10m
  timeout http-keep-alive 10m
  retries 3
  option redispatch 1
frontend mcp
  bind 127.0.0.1:${front}
  default_backend replicas
backend replicas
  balance roundrobin
  http-response set-header X-Replica %s
${replicas.map((r, i) => `  server r${i} 127.0.0.1:${r.port}`).join('\n')}
`);
// It says nothing when it starts well: it is ready once it accepts connections.
const lb = await started(haproxy, ['-db', '-f', cfg], []);
await accepting(front);

// A client through HAProxy: its fetch notes which replica answered each tools/call.
async function connect(url, routed) {
  const client = new Client({ name: 'mcpvalidate-e2e-fleet', version: '1.0.0' });
  const fetchNoting = async (input, init) => {
    const res = await fetch(input, init);
    if (routed && init?.method === 'POST' && typeof init.body === 'string') {
      const msg = JSON.parse(init.body);
      if (msg.method === 'tools/call') routed.last = { name: msg.params.name, replica: res.headers.get('x-replica') };
      if (msg.method?.startsWith('tasks/')) routed.tasks.push({ method: msg.method, replica: res.headers.get('x-replica') });
    }
    if (routed && init?.method === 'GET') {
      const resumes = new Headers(init.headers).get('last-event-id');
      routed.streams.push({ status: res.status, replica: res.headers.get('x-replica'), resumes: !!resumes });
      routed.streamOpened?.();
    }
    return res;
  };
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: fetchNoting }));
  return client;
}

const valid = [
  ['echo', { message: 'hello' }],
  ['get-sum', { a: 1, b: 2.5 }],
  ['get-annotated-message', { messageType: 'success' }],
  ['get-structured-content', { location: 'Chicago' }],
];
const invalid = [
  ['echo', {}, "missing required property 'message'"],
  ['echo', { message: 42 }, "property 'message' must be string"],
  ['get-sum', { a: '1', b: 2 }, "property 'a' must be number"],
  ['get-annotated-message', { messageType: 'warning' }, "property 'messageType' must be one of"],
];
// Tools the server does not list, as a model might misspell them: two, so that a
// session's ten calls do not give each replica the same kinds of call in every session.
const unlisted = ['ECHO', 'get_sum'];
const TASK_TOOL = 'simulate-research-query';

// caused counts what the clients caused on each replica: caused[replica][tool|outcome].
const caused = {};
const cause = (replica, tool, outcome) => {
  caused[replica] ??= {};
  const key = `${tool}|${outcome}`;
  caused[replica][key] = (caused[replica][key] ?? 0) + 1;
};
// took[replica] is the set of kinds of call (valid, invalid, unlisted) each replica took.
const took = {};

const direct = await connect(upstream);
const sessions = [];
for (let i = 0; i < SESSIONS; i++) {
  const routed = { last: null, tasks: [], streams: [] };
  sessions.push({ client: await connect(`http://127.0.0.1:${front}/mcp`, routed), routed });
}

async function outcome(client, name, args) {
  try {
    return await client.callTool({ name, arguments: args }, undefined, REQUEST_OPTIONS);
  } catch (err) {
    return { error: err };
  }
}

// round makes every call on every session, checking each answer, and returns the
// replicas that took them.
async function round(label) {
  const used = new Set();
  const routedTo = (s, name) => {
    assert.equal(s.routed.last?.name, name, 'the tools/call seen by fetch');
    const { replica } = s.routed.last;
    assert.ok(replica, 'no X-Replica header');
    s.routed.last = null;
    used.add(replica);
    (took[replica] ??= new Set());
    return replica;
  };
  for (const [i, s] of sessions.entries()) {
    for (const [name, args] of valid) {
      await check(`${label}, session ${i}: valid ${name} ${JSON.stringify(args)}: the answer direct`, async () => {
        const got = await outcome(s.client, name, args);
        const replica = routedTo(s, name);
        cause(replica, name, 'accepted');
        took[replica].add('valid');
        assert.deepEqual(got, await outcome(direct, name, args), `through ${replica}`);
      });
    }
    for (const [name, args, want] of invalid) {
      await check(`${label}, session ${i}: invalid ${name} ${JSON.stringify(args)}: refused`, async () => {
        const got = await outcome(s.client, name, args);
        const replica = routedTo(s, name);
        cause(replica, name, 'refused');
        took[replica].add('invalid');
        const text = got.content?.[0]?.text ?? '';
        assert.ok(got.isError && text.startsWith('Invalid arguments: ') && text.includes(want), `through ${replica}: ${JSON.stringify(got)}`);
        assert.equal(got._meta?.[META_KEY]?.of, 'arguments', `through ${replica}`);
      });
    }
    for (const name of unlisted) {
      await check(`${label}, session ${i}: unlisted ${name}: refused as Unknown tool`, async () => {
        const got = await outcome(s.client, name, {});
        const replica = routedTo(s, name);
        cause(replica, '_unknown', 'unknown_tool');
        took[replica].add('unlisted');
        assert.ok(got.error?.code === -32602 && got.error.message.endsWith(`Unknown tool: ${name}`), `through ${replica}: ${got.error?.message ?? JSON.stringify(got)}`);
      });
    }
  }
  return used;
}

// scrape reads mcpvalidate_calls_total of a replica, per tool and outcome, and its
// mcpvalidate_repairs_total, summed, under the key "repairs".
async function scrape(r) {
  const text = await (await fetch(r.metrics)).text();
  const counts = {};
  for (const line of text.split('\n')) {
    const repairs = line.match(/^mcpvalidate_repairs_total\{.*\} (\S+)$/);
    if (repairs) counts.repairs = (counts.repairs ?? 0) + Number(repairs[1]);
    const m = line.match(/^mcpvalidate_calls_total\{(.*)\} (\S+)$/);
    if (!m) continue;
    const label = (name) => m[1].match(new RegExp(`(?:^|,)${name}="([^"]*)"`))?.[1];
    assert.equal(label('mcpvalidate_report_only'), 'false', line);
    const key = `${label('gen_ai_tool_name')}|${label('mcpvalidate_outcome')}`;
    counts[key] = (counts[key] ?? 0) + Number(m[2]);
  }
  return counts;
}
const add = (a, b) => {
  const sum = { ...a };
  for (const [k, v] of Object.entries(b)) sum[k] = (sum[k] ?? 0) + v;
  return sum;
};
const sorted = (o) => Object.fromEntries(Object.entries(o ?? {}).sort());

let KILLED;
let killed;
let lost = {};
try {
  const first = await round('round 1, every replica up');
  await check(`round 1: every replica took calls (${[...first].sort()})`, () => assert.equal(first.size, REPLICAS));
  // The replica killed is the one that holds session 0's GET stream, which the SDK's
  // client then opens again, through HAProxy, on another.
  const [stream] = sessions[0].routed.streams;
  killed = stream.replica;
  KILLED = Number(killed.slice(1));
  lost = await scrape(replicas[KILLED]);
  console.log(`     ${killed} counted before its kill: ${JSON.stringify(sorted(lost))}`);
  const reopened = new Promise((resolve) => (sessions[0].routed.streamOpened = resolve));
  await replicas[KILLED].stop('SIGKILL');
  await reopened;
  await check(`session 0's GET stream, cut with ${killed}, opened again through another replica`, () => {
    const again = sessions[0].routed.streams.at(-1);
    assert.ok(again.status === 200 && again.replica !== killed, JSON.stringify(sessions[0].routed.streams));
  });

  const second = await round(`round 2, ${killed} killed`);
  await check(`round 2: no call answered by ${killed}, the others took them (${[...second].sort()})`, () => {
    assert.ok(!second.has(killed) && second.size === REPLICAS - 1);
  });

  replicas[KILLED] = await replica(replicas[KILLED].port);
  const third = await round(`round 3, ${killed} restarted`);
  await check(`round 3: every replica took calls, ${killed} too, in sessions made before its restart (${[...third].sort()})`, () => {
    assert.equal(third.size, REPLICAS);
  });

  // A task-augmented call: its task created, polled and its result fetched through
  // whichever replicas round robin gives.
  const s = sessions[0];
  await check(`task-augmented ${TASK_TOOL}: its task runs and gives its result through the replicas`, async () => {
    const types = [];
    let last;
    const stream = s.client.experimental.tasks.callToolStream({ name: TASK_TOOL, arguments: { topic: 'replicas' } }, CallToolResultSchema,
      { ...REQUEST_OPTIONS, task: { ttl: 60_000 } });
    for await (const m of stream) {
      types.push(m.type);
      if (m.type === 'result') last = m.result;
      if (m.type === 'error') last = m.error;
    }
    const replica = s.routed.last.replica;
    cause(replica, TASK_TOOL, 'accepted');
    assert.equal(types[0], 'taskCreated', JSON.stringify(types));
    assert.ok(types.at(-1) === 'result' && !last.isError && last.content?.[0]?.text?.includes('replicas'), JSON.stringify(last));
    console.log(`     created through ${replica}; ${s.routed.tasks.map((t) => `${t.method} through ${t.replica}`).join(', ')}`);
  });
  await check(`task-augmented ${TASK_TOOL} {"topic":42}: refused with JSON-RPC error -32602`, async () => {
    const stream = s.client.experimental.tasks.callToolStream({ name: TASK_TOOL, arguments: { topic: 42 } }, CallToolResultSchema,
      { ...REQUEST_OPTIONS, task: { ttl: 60_000 } });
    const got = [];
    for await (const m of stream) got.push(m);
    cause(s.routed.last.replica, TASK_TOOL, 'refused');
    assert.ok(got.length === 1 && got[0].type === 'error' && got[0].error.code === -32602, JSON.stringify(got));
  });

  await check('every replica refused invalid calls and passed valid ones', () => {
    for (let i = 0; i < REPLICAS; i++) assert.deepEqual([...(took[`r${i}`] ?? [])].sort(), ['invalid', 'unlisted', 'valid'], `r${i}`);
  });
  let repaired = 0;
  for (const [i, r] of replicas.entries()) {
    const name = `r${i}`;
    await check(`${name}'s mcpvalidate_calls_total equals the calls the clients made through it${i === KILLED ? ' (before its kill plus after its restart)' : ''}`, async () => {
      const { repairs = 0, ...counted } = i === KILLED ? add(lost, await scrape(r)) : await scrape(r);
      repaired += repairs;
      assert.deepEqual(sorted(counted), sorted(caused[name]));
    });
  }
  await check('the server received no invalid call, and every valid one twice (through a replica and direct)', () => {
    const calls = received().filter((m) => m.method === 'tools/call' && m.tool !== TASK_TOOL);
    const times = ([name, args]) => calls.filter((c) => c.tool === name && JSON.stringify(c.arguments) === JSON.stringify(args)).length;
    assert.deepEqual(invalid.filter((c) => times(c) > 0), []);
    assert.deepEqual(valid.map(times), valid.map(() => 2 * 3 * SESSIONS));
  });
  // One proxy would count 3 repairs a session in rounds 2 and 3 (echo, get-sum and
  // get-annotated-message accepted after their refusals of the round before); a replica
  // counts a repair only when it saw the refusal too.
  console.log(`     repairs counted by the replicas: ${repaired} (one proxy: ${3 * 2 * SESSIONS})`);
  for (const [i, s] of sessions.entries()) {
    console.log(`     session ${i}'s GET streams: ${s.routed.streams.map((g) => `${g.status} from ${g.replica}${g.resumes ? ' resuming' : ''}`).join(', ')}`);
  }
  const methods = {};
  for (const m of received()) methods[m.method] = (methods[m.method] ?? 0) + 1;
  console.log(`     the server received: ${JSON.stringify(sorted(methods))}`);
} finally {
  for (const { client } of sessions) await client.close();
  await direct.close();
  await lb.stop();
  for (const r of replicas) await r.stop();
  await server.stop();
}
await check('stopped, nothing listens at HAProxy\'s, the replicas\' or the server\'s ports', async () => {
  for (const port of [front, ...replicas.map((r) => r.port), Number(server.found[0].split(':')[1])]) {
    await assert.rejects(accepting(port, 1), `127.0.0.1:${port} still accepts connections`);
  }
});

clearTimeout(safety);
rmSync(work, { recursive: true, force: true });
if (failures.length > 0) {
  console.log(`\nFAILED: ${failures.join('; ')}`);
  process.exit(1);
}
console.log('\nall passed');
