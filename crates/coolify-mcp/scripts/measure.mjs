#!/usr/bin/env node
// Side-by-side startup measurement: spawn -> first tools/list answered, peak RSS
// (VmHWM) after boot + the four lists, and the compact byte size of each list result.
//
//   node crates/coolify-mcp/scripts/measure.mjs --url http://127.0.0.1:PORT [--runs 7] -- CMD ARGS...
//
// The server is started with COOLIFY_BASE_URL=<url> and the fixture token; start the fixture
// first (`cargo run -p coolify-fixture`). Nothing leaves 127.0.0.1.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

const argv = process.argv.slice(2);
const sep = argv.indexOf('--');
const opts = Object.fromEntries(
  argv.slice(0, sep).reduce((acc, a, i, all) => (a.startsWith('--') ? [...acc, [a.slice(2), all[i + 1]]] : acc), []),
);
const cmd = argv.slice(sep + 1);
const runs = Number(opts.runs ?? 7);
const env = { PATH: process.env.PATH, COOLIFY_BASE_URL: opts.url, COOLIFY_ACCESS_TOKEN: 'fixture-token-not-a-real-credential' };

function once() {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const p = spawn(cmd[0], cmd.slice(1), { env, stdio: ['pipe', 'pipe', 'ignore'] });
    let buf = '';
    let id = 0;
    const pending = new Map();
    p.stdout.on('data', (d) => {
      buf += d;
      let i;
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        const m = JSON.parse(line);
        if (pending.has(m.id)) {
          pending.get(m.id)(m);
          pending.delete(m.id);
        }
      }
    });
    p.on('error', reject);
    const req = (method, params) =>
      new Promise((r) => {
        const n = ++id;
        pending.set(n, r);
        p.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: n, method, params }) + '\n');
      });
    (async () => {
      await req('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'measure', version: '1' } });
      p.stdin.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) + '\n');
      const tools = await req('tools/list', {});
      const firstToolsMs = Number(process.hrtime.bigint() - t0) / 1e6;
      const prompts = await req('prompts/list', {});
      const resources = await req('resources/list', {});
      const templates = await req('resources/templates/list', {});
      const status = readFileSync(`/proc/${p.pid}/status`, 'utf8');
      const hwmKiB = Number(/VmHWM:\s+(\d+)/.exec(status)[1]);
      const size = (m) => Buffer.byteLength(JSON.stringify(m.result));
      p.kill();
      resolve({
        firstToolsMs,
        hwmKiB,
        bytes: { tools: size(tools), prompts: size(prompts), resources: size(resources), templates: size(templates) },
        toolCount: tools.result.tools.length,
      });
    })().catch(reject);
  });
}

const results = [];
for (let i = 0; i < runs; i++) results.push(await once());
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(
  JSON.stringify(
    {
      command: cmd.join(' '),
      runs,
      spawnToFirstToolsListMs: { median: median(results.map((r) => r.firstToolsMs)), min: Math.min(...results.map((r) => r.firstToolsMs)) },
      peakRssKiB: { median: median(results.map((r) => r.hwmKiB)), max: Math.max(...results.map((r) => r.hwmKiB)) },
      toolCount: results[0].toolCount,
      bytes: results[0].bytes,
    },
    null,
    2,
  ),
);
