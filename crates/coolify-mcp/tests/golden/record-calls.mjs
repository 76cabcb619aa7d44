#!/usr/bin/env node
// Tool-call goldens from the reference server (npm @masonator/coolify-mcp@3.5.0):
// what every tool answers against our fixture Coolify API, what it sent upstream, and what
// it asked the human, in each server configuration.
//
// Usage: node crates/coolify-mcp/tests/golden/record-calls.mjs [--scratch DIR]
// Needs Node >= 20, npm and cargo. Not run by `cargo test` (the tests read the outputs).
// The reference is installed into the scratch folder (default $TMPDIR/coolify-mcp-golden-ref,
// never a repo dependency). Everything stays on 127.0.0.1: a preload stubs `fetch` for any
// other host, so `search_docs` never refreshes its index from coolify.io and always ranks the
// bundled index (the one we embed).
//
// Output (rewritten on every run; JSON 2-space with a trailing newline):
//   calls/<config>/<NNN>-<tool>[-<action>].json  {request, response, requests, elicitations}
//     request       {name, arguments} as sent (fleet configs add instance "staging")
//     response      the JSON-RPC result (or {error}) of tools/call
//     requests      the fixture's request log for this call: {method, path, query, body}
//     elicitations  the params of every elicitation/create the server sent (client declined)
//   calls/search-docs.json  [{query, limit, titles}] — search_docs ranking, compared by title
//   calls/manifest.json     reference and Node versions
// Volatile parts are written as placeholders (see `stable`): `<nonce>`, `<fixture>` (the
// fixture's base URL) and `oneoff-<random>`.
//
// Configurations:
//   single         COOLIFY_BASE_URL + token; the client has no elicitation capability
//   fleet          + COOLIFY_INSTANCES=[staging]; every call names instance "staging"
//   readonly       the server class built with {readonly: true}, read-only tools
//   require-human  the server class built with {requireElicitation: true}; every call
//   elicit         single, the client advertises elicitation and declines; guarded calls
//   elicit-fleet   fleet + the declining client; guarded calls
//   unreachable    single, but COOLIFY_BASE_URL is a closed loopback port (UNREACHABLE):
//                  what a connection failure reads like; a few read tools

import { spawn, execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync, existsSync, rmSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import os from 'node:os';

import { CASES, SEARCH_QUERIES } from './cases.mjs';

const REFERENCE = '@masonator/coolify-mcp';
const REFERENCE_VERSION = '3.5.0';
const TOKEN = 'fixture-token-not-a-real-credential';
const PROTOCOL_VERSION = '2025-06-18';
const REQUEST_TIMEOUT_MS = 30_000;

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(here, '../../../..');
const outRoot = join(here, 'calls');

function arg(name, fallback) {
  const i = process.argv.indexOf(name);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}
const scratch = resolve(arg('--scratch', join(os.tmpdir(), 'coolify-mcp-golden-ref')));
const log = (m) => process.stderr.write(`record-calls: ${m}\n`);
function writeJson(path, value) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`);
}

function installReference() {
  const pkg = join(scratch, 'node_modules', REFERENCE, 'package.json');
  if (!(existsSync(pkg) && JSON.parse(readFileSync(pkg, 'utf8')).version === REFERENCE_VERSION)) {
    mkdirSync(scratch, { recursive: true });
    if (!existsSync(join(scratch, 'package.json'))) {
      writeFileSync(join(scratch, 'package.json'), '{"name":"golden-scratch","private":true}\n');
    }
    log(`installing ${REFERENCE}@${REFERENCE_VERSION} into ${scratch}`);
    execFileSync('npm', ['install', '--no-audit', '--no-fund', `${REFERENCE}@${REFERENCE_VERSION}`], {
      cwd: scratch,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  }
  const dist = `./node_modules/${REFERENCE}/dist`;
  const entry = (file, options) =>
    writeFileSync(
      join(scratch, file),
      [
        "import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';",
        `import { CoolifyMcpServer } from '${dist}/lib/mcp-server.js';`,
        `import { registryFromEnv } from '${dist}/lib/instances.js';`,
        `const server = new CoolifyMcpServer(registryFromEnv(process.env, {}), ${options});`,
        'await server.connect(new StdioServerTransport());',
        '',
      ].join('\n'),
    );
  entry('readonly-entry.mjs', '{ readonly: true }');
  entry('require-human-entry.mjs', '{ requireElicitation: true }');
  // Loopback only: any fetch to another host fails at once (search_docs' refresh included).
  writeFileSync(
    join(scratch, 'no-egress.mjs'),
    [
      'const real = globalThis.fetch;',
      'globalThis.fetch = (input, init) => {',
      "  const url = new URL(typeof input === 'string' ? input : input.url ?? String(input));",
      "  if (url.hostname !== '127.0.0.1') return Promise.reject(new TypeError('fetch failed (no egress in golden runs)'));",
      '  return real(input, init);',
      '};',
      '',
    ].join('\n'),
  );
  return {
    main: join(scratch, 'node_modules', REFERENCE, 'dist', 'index.js'),
    readonly: join(scratch, 'readonly-entry.mjs'),
    requireHuman: join(scratch, 'require-human-entry.mjs'),
    preload: join(scratch, 'no-egress.mjs'),
  };
}

async function startFixture() {
  execFileSync('cargo', ['build', '-q', '-p', 'coolify-fixture'], { cwd: repoRoot, stdio: ['ignore', 'inherit', 'inherit'] });
  const meta = JSON.parse(execFileSync('cargo', ['metadata', '--format-version', '1', '--no-deps'], { cwd: repoRoot, maxBuffer: 64 << 20 }));
  const child = spawn(join(meta.target_directory, 'debug', 'coolify-fixture'), [], { stdio: ['pipe', 'pipe', 'inherit'] });
  const url = await new Promise((ok, fail) => {
    createInterface({ input: child.stdout }).once('line', (l) => ok(l.trim()));
    child.once('exit', (c) => fail(new Error(`coolify-fixture exited early (${c})`)));
  });
  return {
    url,
    requests: async () => (await fetch(`${url}/__fixture__/requests`)).json(),
    reset: () => fetch(`${url}/__fixture__/requests`, { method: 'DELETE' }),
    stop: () => child.stdin.end(),
  };
}

/** An NDJSON MCP client; `elicit` answers elicitation/create (recording the params) or is absent. */
function startServer(entry, env, preload, elicit) {
  const child = spawn(process.execPath, ['--import', preload, entry], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: 'production', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (c) => (stderr += c));
  const pending = new Map();
  const asked = [];
  let nextId = 1;
  const send = (msg) => child.stdin.write(`${JSON.stringify(msg)}\n`);
  createInterface({ input: child.stdout }).on('line', (line) => {
    if (!line.trim()) return;
    const msg = JSON.parse(line);
    if (msg.method === 'elicitation/create' && msg.id !== undefined) {
      asked.push(msg.params);
      send({ jsonrpc: '2.0', id: msg.id, result: { action: elicit } });
      return;
    }
    if (msg.id !== undefined && pending.has(msg.id)) {
      const { done, timer } = pending.get(msg.id);
      clearTimeout(timer);
      pending.delete(msg.id);
      done(msg);
    }
  });
  return {
    asked,
    request(method, params) {
      const id = nextId++;
      return new Promise((done, fail) => {
        const timer = setTimeout(() => fail(new Error(`${method} timed out; stderr: ${stderr.slice(-500)}`)), REQUEST_TIMEOUT_MS);
        pending.set(id, { done, timer });
        send({ jsonrpc: '2.0', id, method, params });
      });
    },
    notify: (method) => send({ jsonrpc: '2.0', method }),
    async close() {
      child.stdin.end();
      await new Promise((r) => {
        const t = setTimeout(() => (child.kill('SIGKILL'), r()), 5_000);
        child.once('exit', () => (clearTimeout(t), r()));
      });
      return stderr;
    },
  };
}

/** A loopback URL nothing listens on (port 9, discard): every request fails to connect. */
const UNREACHABLE = 'http://127.0.0.1:9';
const UNREACHABLE_TOOLS = new Set(['get_version', 'list_servers', 'get_application']);

function configurations(url, entries) {
  const single = { COOLIFY_BASE_URL: url, COOLIFY_ACCESS_TOKEN: TOKEN };
  const fleet = { ...single, COOLIFY_INSTANCES: JSON.stringify([{ name: 'staging', url, token: TOKEN }]) };
  return [
    { name: 'single', entry: entries.main, env: single, pick: () => true },
    { name: 'fleet', entry: entries.main, env: fleet, instance: 'staging', pick: () => true },
    { name: 'readonly', entry: entries.readonly, env: single, pick: (c) => c.ro },
    { name: 'require-human', entry: entries.requireHuman, env: single, pick: () => true },
    { name: 'elicit', entry: entries.main, env: single, elicit: 'decline', pick: (c) => c.guarded },
    { name: 'elicit-fleet', entry: entries.main, env: fleet, instance: 'staging', elicit: 'decline', pick: (c) => c.guarded },
    {
      name: 'unreachable',
      entry: entries.main,
      env: { ...single, COOLIFY_BASE_URL: UNREACHABLE },
      pick: (c) => UNREACHABLE_TOOLS.has(c.tool),
    },
  ];
}

/**
 * Volatile parts become fixed placeholders, so two runs write identical files (the tests
 * normalize our answers the same way): the untrusted-boundary nonce, the fixture's URL and
 * the random one-off task name.
 */
function stable(text, fixtureUrl) {
  let out = text.split(fixtureUrl).join('<fixture>');
  for (const [, nonce] of text.matchAll(/UNTRUSTED LOG OUTPUT ([0-9a-f]{12})/g)) {
    out = out.split(nonce).join('<nonce>');
  }
  return out.replace(/oneoff-[0-9a-z]+/g, 'oneoff-<random>');
}

/** Apply {@link stable} to every string inside a JSON value. */
function stableValue(value, fixtureUrl) {
  if (typeof value === 'string') return stable(value, fixtureUrl);
  if (Array.isArray(value)) return value.map((v) => stableValue(v, fixtureUrl));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, stableValue(v, fixtureUrl)]));
  }
  return value;
}

/** The fixture log, reduced to what a parity test compares. */
function upstream(requests) {
  return requests.map(({ method, path, query, body }) => {
    let parsed = body;
    try {
      parsed = body ? JSON.parse(body) : null;
    } catch {
      // kept as text
    }
    return { method, path, query, body: parsed };
  });
}

async function record(config, fixture) {
  const client = startServer(config.entry, config.env, config.preload, config.elicit);
  const capabilities = config.elicit ? { elicitation: {} } : {};
  const init = await client.request('initialize', {
    protocolVersion: PROTOCOL_VERSION,
    capabilities,
    clientInfo: { name: 'coolify-golden-calls', version: '1.0.0' },
  });
  if (init.error) throw new Error(`${config.name}: initialize failed: ${JSON.stringify(init.error)}`);
  client.notify('notifications/initialized');
  const dir = join(outRoot, config.name);
  rmSync(dir, { recursive: true, force: true });
  let n = 0;
  for (const c of CASES) {
    n += 1;
    if (!config.pick(c) || (c.only && !c.only.includes(config.name))) continue;
    if (c.tool === 'list_instances' && !config.instance) continue;
    const args = { ...c.args };
    if (config.instance && c.tool !== 'list_instances') args.instance = config.instance;
    await fixture.reset();
    client.asked.length = 0;
    const msg = await client.request('tools/call', { name: c.tool, arguments: args });
    const file = `${String(n).padStart(3, '0')}-${c.tool}${c.args.action ? `-${c.args.action}` : ''}.json`;
    writeJson(
      join(dir, file),
      stableValue(
        {
          request: { name: c.tool, arguments: args },
          response: msg.result ?? { error: msg.error },
          requests: upstream(await fixture.requests()),
          elicitations: [...client.asked],
        },
        fixture.url,
      ),
    );
  }
  let docs = null;
  if (config.name === 'single') {
    docs = [];
    for (const { query, limit } of SEARCH_QUERIES) {
      const msg = await client.request('tools/call', { name: 'search_docs', arguments: limit === undefined ? { query } : { query, limit } });
      const body = JSON.parse(msg.result.content[0].text);
      docs.push({ query, limit, titles: body.results.map((r) => r.title) });
    }
  }
  const stderr = await client.close();
  if (stderr.trim()) log(`${config.name} stderr: ${stderr.trim().slice(0, 300)}`);
  log(`${config.name}: recorded`);
  return docs;
}

async function main() {
  const entries = installReference();
  const fixture = await startFixture();
  try {
    for (const config of configurations(fixture.url, entries)) {
      const docs = await record({ ...config, preload: entries.preload }, fixture);
      if (docs) writeJson(join(outRoot, 'search-docs.json'), docs);
    }
    writeJson(join(outRoot, 'manifest.json'), {
      reference: `${REFERENCE}@${REFERENCE_VERSION}`,
      node: process.version,
      protocolVersion: PROTOCOL_VERSION,
      cases: CASES.length,
      searchQueries: SEARCH_QUERIES.length,
    });
  } finally {
    fixture.stop();
  }
}

main().catch((e) => {
  process.stderr.write(`record-calls failed: ${e.stack ?? e}\n`);
  process.exit(1);
});
