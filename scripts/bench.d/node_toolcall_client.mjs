// Peer for `scripts/bench toolcall`: the Node SDK client calls one tool N times in one process
// against a stdio server and prints {median_us, p10_us, p90_us, client_peak_rss_kib} like
// crates/mcp/examples/bench_toolcall.rs.
// Usage: node node_toolcall_client.mjs WARMUP CALLS -- CMD ARGS...
//        node node_toolcall_client.mjs WARMUP CALLS --url URL   (streamable HTTP)
// BENCH_TOOL / BENCH_TOOL_ARGS (JSON) choose the tool (default: echo {"message":"hi"}).
import { readFileSync } from 'node:fs';
import { Client, StdioClientTransport, StreamableHTTPClientTransport } from './sdk.mjs';

const [warmupArg, callsArg, dashes, command, ...args] = process.argv.slice(2);
if ((dashes !== '--' && dashes !== '--url') || !command) {
  console.error('usage: node node_toolcall_client.mjs WARMUP CALLS (-- CMD ARGS... | --url URL)');
  process.exit(2);
}
const warmup = Number(warmupArg);
const calls = Number(callsArg);
const started = process.hrtime.bigint();
const client = new Client({ name: 'bench-node', version: '0.0.0' });
await client.connect(dashes === '--url'
  ? new StreamableHTTPClientTransport(new URL(command))
  : new StdioClientTransport({ command, args, env: process.env, stderr: 'ignore' }));
const readyMs = Number(process.hrtime.bigint() - started) / 1e6;
const request = {
  name: process.env.BENCH_TOOL || 'echo',
  arguments: JSON.parse(process.env.BENCH_TOOL_ARGS || '{"message":"hi"}'),
};
for (let i = 0; i < warmup; i++) await client.callTool(request);
const samples = [];
for (let i = 0; i < calls; i++) {
  const t = process.hrtime.bigint();
  await client.callTool(request);
  samples.push(Number(process.hrtime.bigint() - t) / 1e3);
}
samples.sort((a, b) => a - b);
const at = (f) => samples[Math.floor((samples.length - 1) * f)];
const hwm = readFileSync('/proc/self/status', 'utf8').match(/VmHWM:\s+(\d+)/);
console.log(JSON.stringify({
  client: 'node-sdk', calls, median_us: at(0.5), p10_us: at(0.1), p90_us: at(0.9),
  ready_ms: readyMs, client_peak_rss_kib: hwm ? Number(hwm[1]) : 0,
}));
await client.close();
