// The TypeScript SDK's v2 client (@modelcontextprotocol/client, pinned in package.json) pinned to
// protocol 2026-07-28 against coolify-mcp over streamable HTTP: it calls a guarded delete, gets
// `input_required`, answers the embedded elicitation through its own `elicitation/create`
// handler (accept, or the action in argv[4]) and retries with the echoed requestState.
// Usage: node modern-delete.mjs URL TOKEN UUID [accept|decline]
// Prints one JSON line: {era, asked: [messages], result}.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const [url, token, uuid, action = 'accept'] = process.argv.slice(2);
const asked = [];
const client = new Client(
  { name: 'coolify-mcp-modern-test', version: '1.0.0' },
  {
    capabilities: { elicitation: { form: {} } },
    versionNegotiation: { mode: { pin: '2026-07-28' } },
  },
);
client.setRequestHandler('elicitation/create', async (request) => {
  asked.push(request.params.message);
  return { action, content: {} };
});
const transport = new StreamableHTTPClientTransport(new URL(url), {
  requestInit: { headers: { Authorization: `Bearer ${token}` } },
});
await client.connect(transport);
const result = await client.callTool({
  name: 'application',
  arguments: { action: 'delete', uuid },
});
process.stdout.write(
  JSON.stringify({ era: client.getNegotiatedProtocolVersion?.() ?? null, asked, result }) + '\n',
);
await client.close();
