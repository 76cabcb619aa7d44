// Peer for `scripts/bench blob`: what `coyote mcp read SERVER URI --json` does for a blob,
// done with the Node SDK — spawn the server, initialize, resources/read, base64-decode,
// sha256, write the bytes to OUT_DIR/<sha256>.bin, print {path, sha256, bytes}.
// Usage: node node_blob_client.mjs URI OUT_DIR -- CMD ARGS...
import { createHash } from 'node:crypto';
import { writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { Client, StdioClientTransport } from './sdk.mjs';

const [uri, outDir, dashes, command, ...args] = process.argv.slice(2);
if (dashes !== '--' || !command) {
  console.error('usage: node node_blob_client.mjs URI OUT_DIR -- CMD ARGS...');
  process.exit(2);
}
const client = new Client({ name: 'bench-node', version: '0.0.0' });
// SDK >= 1.2x caps one stdio message at 10 MiB by default (STDIO_DEFAULT_MAX_BUFFER_SIZE);
// raise it to coyote's limit (80 MiB, MAX_MESSAGE_BYTES) so the SDK can read the blob at all.
const maxBufferSize = 80 * 1024 * 1024;
await client.connect(new StdioClientTransport({ command, args, stderr: 'ignore', maxBufferSize }));
const result = await client.readResource({ uri }, { timeout: 900000 });
const item = result.contents[0];
const bytes = Buffer.from(item.blob, 'base64');
const sha256 = createHash('sha256').update(bytes).digest('hex');
mkdirSync(outDir, { recursive: true });
const file = path.join(outDir, `${sha256}.bin`);
writeFileSync(file, bytes, { mode: 0o600 });
console.log(JSON.stringify({ path: file, sha256, bytes: bytes.length }));
await client.close();
