// Loads the official TypeScript MCP SDK for the peer clients of scripts/bench from
// $BENCH_SDK_DIR (the package root; scripts/bench points it at node_modules/@modelcontextprotocol/sdk,
// present as a dependency of server-everything, or at a git-ignored scratch install).
import { pathToFileURL } from 'node:url';
import path from 'node:path';

const root = process.env.BENCH_SDK_DIR;
if (!root) {
  console.error('BENCH_SDK_DIR is not set: point it at the @modelcontextprotocol/sdk package root');
  process.exit(2);
}
const load = (rel) => import(pathToFileURL(path.join(root, 'dist/esm', rel)).href);
export const { Client } = await load('client/index.js');
export const { StdioClientTransport } = await load('client/stdio.js');
export const { StreamableHTTPClientTransport } = await load('client/streamableHttp.js');
