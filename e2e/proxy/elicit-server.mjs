// An MCP server that asks the user for their age with a form elicitation and does not
// check the answer against the schema it asked with, as a server that trusts its client
// does: its tool ask_age answers with what it received ("received {...}"), or with the
// JSON-RPC error its request got ("error CODE: MESSAGE"). The end-to-end checks run it
// over stdio (node elicit-server.mjs) and over streamable HTTP on 127.0.0.1 (node
// elicit-server.mjs http: it prints "listening on 127.0.0.1:PORT" on stdout). It exits
// when its stdin ends.
import { randomUUID } from 'node:crypto';
import http from 'node:http';

import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ElicitResultSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const requestedSchema = { type: 'object', properties: { age: { type: 'integer', minimum: 0 } }, required: ['age'] };

function newServer() {
  const server = new Server({ name: 'elicit-server', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [{ name: 'ask_age', description: "Asks the user's age", inputSchema: { type: 'object', properties: {} } }],
  }));
  server.setRequestHandler(CallToolRequestSchema, async (_request, extra) => {
    try {
      // sendRequest, not elicitInput, which would check the content itself.
      const result = await extra.sendRequest({ method: 'elicitation/create', params: { mode: 'form', message: 'Your age?', requestedSchema } }, ElicitResultSchema);
      return { content: [{ type: 'text', text: `received ${JSON.stringify(result.content)}` }] };
    } catch (err) {
      return { content: [{ type: 'text', text: `error ${err.code}: ${err.message}` }] };
    }
  });
  return server;
}

process.stdin.on('end', () => process.exit(0));
if (process.argv[2] === 'http') {
  process.stdin.resume();
  const transports = new Map();
  const listener = http.createServer(async (req, res) => {
    let transport = transports.get(req.headers['mcp-session-id']);
    if (!transport) {
      transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (id) => transports.set(id, transport) });
      await newServer().connect(transport);
    }
    await transport.handleRequest(req, res);
  });
  listener.listen(0, '127.0.0.1', () => console.log(`listening on 127.0.0.1:${listener.address().port}`));
} else {
  await newServer().connect(new StdioServerTransport());
}
