// A Node preload for the end-to-end checks (node --require ./loopback.cjs server.js ...),
// for published servers that serve HTTP with no setting for the address they listen on
// (server-everything's streamableHttp listens on every interface, at $PORT):
//   - every net.Server of the process listens on 127.0.0.1, at the port it asked for
//     (0: one the system picks), and says where on stderr, from the socket itself:
//     "loopback.cjs: listening on 127.0.0.1:PORT";
//   - with MCPVALIDATE_E2E_RECORD set to a file, each JSON-RPC request or notification in the body of a
//     POST the server receives is appended to it as one JSON line, before the server reads
//     the body: {"method":...,"tool":...,"arguments":...} (tool and arguments for
//     tools/call). What the server never received is not in the file;
//   - with MCPVALIDATE_E2E_EXIT_WITH_STDIN=1, the process exits when its stdin ends: a
//     test that dies before it can stop the server still ends it, by ending.
// A listen it cannot bind to 127.0.0.1 (a pipe, a handle) throws, rather than listen
// elsewhere.
'use strict';

const fs = require('node:fs');
const http = require('node:http');
const net = require('node:net');

const LOOPBACK = '127.0.0.1';
const record = process.env.MCPVALIDATE_E2E_RECORD;

// loopbackOptions turns the arguments of net.Server's listen, but a callback, into
// options for 127.0.0.1.
function loopbackOptions(args) {
  const [first] = args;
  let options;
  if (first === undefined) {
    options = { port: 0 };
  } else if (typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first))) {
    options = { port: Number(first) };
  } else if (first !== null && typeof first === 'object' && first.path === undefined && first.handle === undefined && first.fd === undefined && !(first instanceof net.Server)) {
    options = { ...first, port: Number(first.port ?? 0) };
  } else {
    throw new Error(`loopback.cjs: listen(${JSON.stringify(first)}) is not a TCP port: it cannot be bound to ${LOOPBACK}`);
  }
  for (const name of ['host', 'ipv6Only', 'exclusive', 'reusePort']) delete options[name];
  return { ...options, host: LOOPBACK };
}

if (process.env.MCPVALIDATE_E2E_EXIT_WITH_STDIN === '1') {
  process.stdin.on('end', () => process.exit(0));
  process.stdin.resume();
}

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  const callback = typeof args[args.length - 1] === 'function' ? args.pop() : undefined;
  const options = loopbackOptions(args);
  this.once('listening', () => {
    const { address, port } = this.address();
    process.stderr.write(`loopback.cjs: listening on ${address}:${port}\n`);
  });
  if (record && this instanceof http.Server) this.prependListener('request', recordRequests);
  return callback ? listen.call(this, options, callback) : listen.call(this, options);
};

// recordRequests records the JSON-RPC requests and notifications of a POST's body once the body has arrived,
// before whatever reads it gets its end: the HTTP parser pushes the body into req, and the
// wrapped push sees each chunk, then the end (null).
function recordRequests(req) {
  if (req.method !== 'POST') return;
  const chunks = [];
  const push = req.push;
  req.push = function (chunk, encoding) {
    if (chunk === null) {
      appendRequests(Buffer.concat(chunks).toString('utf8'));
    } else {
      chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk, encoding));
    }
    return push.call(this, chunk, encoding);
  };
}

function appendRequests(body) {
  let parsed;
  try {
    parsed = JSON.parse(body);
  } catch {
    fs.appendFileSync(record, JSON.stringify({ unparsed: body }) + '\n');
    return;
  }
  const lines = [];
  for (const msg of Array.isArray(parsed) ? parsed : [parsed]) {
    if (typeof msg?.method !== 'string') continue;
    const line = { method: msg.method };
    if (msg.method === 'tools/call') {
      line.tool = msg.params?.name;
      line.arguments = msg.params?.arguments;
    }
    lines.push(JSON.stringify(line) + '\n');
  }
  if (lines.length > 0) fs.appendFileSync(record, lines.join(''));
}
