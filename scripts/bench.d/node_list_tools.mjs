// Peer for `scripts/bench rss`: what `coyote mcp tools SERVER` does, with the Node SDK client —
// connect to one stdio server, list its tools (every page), print them one a line, close.
// Its peak RSS is read from outside by peak_rss.py (the process alone, not the server).
// Usage: node node_list_tools.mjs -- CMD ARGS...
import { Client, StdioClientTransport } from './sdk.mjs';

const [dashes, command, ...args] = process.argv.slice(2);
if (dashes !== '--' || !command) {
  console.error('usage: node node_list_tools.mjs -- CMD ARGS...');
  process.exit(2);
}
const client = new Client({ name: 'bench-node', version: '0.0.0' });
await client.connect(new StdioClientTransport({ command, args, stderr: 'ignore' }));
let cursor;
do {
  const page = await client.listTools(cursor ? { cursor } : {});
  for (const tool of page.tools) console.log(`${tool.name}\t${tool.description ?? ''}`);
  cursor = page.nextCursor;
} while (cursor);
await client.close();
