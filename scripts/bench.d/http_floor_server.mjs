// The HTTP floor for `scripts/bench coolify`: a streamable-HTTP "server" with no MCP stack at
// all. It answers `initialize` with a fixed result and a session id, notifications with 202,
// and every other request with a prepared answer to `get_mcp_version` in one SSE event (the
// shape coolify-mcp sends), written with one `end()` on a keep-alive connection, TCP_NODELAY.
// What the TypeScript SDK client spends per call against it is what any server costs that
// client over HTTP at the least: Node's fetch, the SDK's SSE parsing, two loopback hops.
//
// Usage: node http_floor_server.mjs   -> prints "listening on http://127.0.0.1:PORT/mcp"
// Binds 127.0.0.1 only; runs until killed.
import http from 'node:http';

const SESSION = 'floor-session';
const TEXT = JSON.stringify({ version: '0.0.0', name: 'http-floor' });
const server = http.createServer({ noDelay: true, keepAlive: true }, (req, res) => {
  if (req.method === 'DELETE') {
    res.writeHead(200).end();
    return;
  }
  if (req.method !== 'POST') {
    res.writeHead(405, { allow: 'POST' }).end();
    return;
  }
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const msg = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    if (msg.id === undefined) {
      res.writeHead(202).end();
      return;
    }
    const result = msg.method === 'initialize'
      ? {
          protocolVersion: msg.params.protocolVersion,
          capabilities: { tools: {} },
          serverInfo: { name: 'http-floor', version: '0.0.0' },
        }
      : { content: [{ type: 'text', text: TEXT }] };
    const body = `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: msg.id, result })}\n\n`;
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      'mcp-session-id': SESSION,
    });
    res.end(body);
  });
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening on http://127.0.0.1:${server.address().port}/mcp\n`);
});
