#!/usr/bin/env node
// Golden capture from the reference server (npm @masonator/coolify-mcp@3.5.0).
//
// What it does, all on 127.0.0.1:
// 1. installs the reference into a scratch folder (never a repo dependency; reused if present);
// 2. builds and starts our fixture Coolify API (`coolify-fixture` binary);
// 3. spawns the reference over stdio in several configurations and speaks NDJSON JSON-RPC to
//    it (initialize, the four lists, prompts/get, a few reads and completions);
// 4. writes what it answered under this folder, one directory per configuration.
//
// Usage: node crates/coolify-mcp/tests/golden/capture.mjs [--scratch DIR]
// Needs Node >= 20, npm and cargo. Re-running overwrites the outputs; a diff shows what moved.
// Nothing here runs during `cargo test`: the tests only read the committed outputs.
//
// Output layout (JSON is 2-space pretty-printed with a trailing newline; prompt texts are also
// written raw as .txt so byte-exact comparisons need no unescaping):
//   <config>/initialize.json           the initialize result (serverInfo, capabilities, instructions)
//   <config>/instructions.txt          the instructions string, raw
//   <config>/tools-list.json           the whole tools/list result (not for the prompt-only configs)
//   <config>/tools-roster.json         tool names in registration order
//   <config>/tools/<name>.json         the tools/list entry of every tool
//   <config>/prompts-list.json, resources-list.json, resource-templates-list.json
//   <config>/prompts/<variant>.json|.txt   prompts/get results
//   <config>/reads/…                   resources/read and completion probes
//   <config>/fixture-requests.json     what the reference sent to the fixture during the run
//   manifest.json                      versions, configurations and probes

import { spawn, execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync, existsSync, rmSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import os from 'node:os';

const REFERENCE = '@masonator/coolify-mcp';
const REFERENCE_VERSION = '3.5.0';
const TOKEN = 'fixture-token-not-a-real-credential';
const PROTOCOL_VERSION = '2025-06-18';
const REQUEST_TIMEOUT_MS = 20_000;

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(here, '../../../..');

function arg(name, fallback) {
  const i = process.argv.indexOf(name);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

const scratch = resolve(arg('--scratch', join(os.tmpdir(), 'coolify-mcp-golden-ref')));

function log(message) {
  process.stderr.write(`capture: ${message}\n`);
}

function writeJson(path, value) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`);
}

function writeText(path, text) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

// ---------------------------------------------------------------------------------------------
// 1. The reference, in a scratch folder.

function installReference() {
  const pkg = join(scratch, 'node_modules', REFERENCE, 'package.json');
  if (existsSync(pkg) && JSON.parse(readFileSync(pkg, 'utf8')).version === REFERENCE_VERSION) {
    log(`reusing ${REFERENCE}@${REFERENCE_VERSION} in ${scratch}`);
  } else {
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
  // Read-only mode is HTTP-only in the reference; a small entry script builds
  // the same server class with `{readonly: true}` over stdio.
  const dist = `./node_modules/${REFERENCE}/dist`;
  writeFileSync(
    join(scratch, 'readonly-entry.mjs'),
    [
      "import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';",
      `import { CoolifyMcpServer } from '${dist}/lib/mcp-server.js';`,
      `import { registryFromEnv } from '${dist}/lib/instances.js';`,
      'const server = new CoolifyMcpServer(registryFromEnv(process.env, {}), { readonly: true });',
      'await server.connect(new StdioServerTransport());',
      '',
    ].join('\n'),
  );
  return {
    main: join(scratch, 'node_modules', REFERENCE, 'dist', 'index.js'),
    readonly: join(scratch, 'readonly-entry.mjs'),
  };
}

// ---------------------------------------------------------------------------------------------
// 2. Our fixture Coolify API.

async function startFixture() {
  log('building coolify-fixture');
  execFileSync('cargo', ['build', '-q', '-p', 'coolify-fixture'], { cwd: repoRoot, stdio: ['ignore', 'inherit', 'inherit'] });
  const meta = JSON.parse(
    execFileSync('cargo', ['metadata', '--format-version', '1', '--no-deps'], { cwd: repoRoot, maxBuffer: 64 << 20 }),
  );
  const bin = join(meta.target_directory, 'debug', 'coolify-fixture');
  const child = spawn(bin, [], { stdio: ['pipe', 'pipe', 'inherit'] });
  const url = await new Promise((resolveUrl, reject) => {
    const lines = createInterface({ input: child.stdout });
    lines.once('line', (line) => resolveUrl(line.trim()));
    child.once('exit', (code) => reject(new Error(`coolify-fixture exited early (${code})`)));
  });
  log(`fixture at ${url}`);
  return {
    url,
    async requests() {
      const res = await fetch(`${url}/__fixture__/requests`);
      return res.json();
    },
    async reset() {
      await fetch(`${url}/__fixture__/requests`, { method: 'DELETE' });
    },
    stop() {
      child.stdin.end();
    },
  };
}

// ---------------------------------------------------------------------------------------------
// 3. A minimal NDJSON MCP client.

function startServer(entry, env) {
  const child = spawn(process.execPath, [entry], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: 'production', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const pending = new Map();
  let nextId = 1;
  createInterface({ input: child.stdout }).on('line', (line) => {
    if (!line.trim()) return;
    const msg = JSON.parse(line);
    if (msg.id !== undefined && pending.has(msg.id) && (msg.result !== undefined || msg.error !== undefined)) {
      const { resolveMsg, timer } = pending.get(msg.id);
      clearTimeout(timer);
      pending.delete(msg.id);
      resolveMsg(msg);
    }
  });
  const send = (msg) => child.stdin.write(`${JSON.stringify(msg)}\n`);
  return {
    /** Resolves to the whole JSON-RPC response ({result} or {error}). */
    request(method, params) {
      const id = nextId++;
      return new Promise((resolveMsg, reject) => {
        const timer = setTimeout(() => {
          pending.delete(id);
          reject(new Error(`${method} timed out; stderr: ${stderr.slice(-500)}`));
        }, REQUEST_TIMEOUT_MS);
        pending.set(id, { resolveMsg, timer });
        send({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
      });
    },
    notify(method, params) {
      send({ jsonrpc: '2.0', method, ...(params === undefined ? {} : { params }) });
    },
    async close() {
      child.stdin.end();
      await new Promise((r) => {
        const t = setTimeout(() => {
          child.kill('SIGKILL');
          r();
        }, 5_000);
        child.once('exit', () => {
          clearTimeout(t);
          r();
        });
      });
      return stderr;
    },
  };
}

async function result(client, method, params) {
  const msg = await client.request(method, params);
  if (msg.error) throw new Error(`${method} failed: ${JSON.stringify(msg.error)}`);
  return msg.result;
}

// ---------------------------------------------------------------------------------------------
// 4. Configurations and probes.

function fleetEnv(fixtureUrl, names) {
  return JSON.stringify(names.map((name) => ({ name, url: fixtureUrl, token: TOKEN })));
}

function configurations(fixtureUrl, entries) {
  const single = { COOLIFY_BASE_URL: fixtureUrl, COOLIFY_ACCESS_TOKEN: TOKEN };
  return [
    {
      // default + staging, both on the fixture.
      name: 'single', entry: entries.main, env: single,
      prompts: {
        troubleshoot: ['troubleshoot_application', { query: 'shop-frontend' }],
        troubleshoot_quoted: ['troubleshoot_application', { query: 'the "staging" box' }],
        explain: ['explain_failed_deploy', { deployment_uuid: 'dep-9001' }],
        estate: ['estate_health', {}],
      },
      reads: ['coolify://overview', 'coolify://application/app-api'],
      toolCalls: { get_infrastructure_overview: {}, get_application: { uuid: 'app-api' } },
    },
    {
      name: 'fleet', entry: entries.main,
      env: { ...single, COOLIFY_INSTANCES: fleetEnv(fixtureUrl, ['staging']) },
      prompts: {
        troubleshoot: ['troubleshoot_application', { query: 'shop-frontend' }],
        troubleshoot_staging: ['troubleshoot_application', { query: 'shop-frontend', instance: 'staging' }],
        explain_staging: ['explain_failed_deploy', { deployment_uuid: 'dep-9001', instance: 'staging' }],
        estate: ['estate_health', {}],
        estate_staging: ['estate_health', { instance: 'staging' }],
      },
      reads: ['coolify://staging/overview', 'coolify://staging/application/app-api'],
      completions: {
        instance_st: { ref: { type: 'ref/resource', uri: 'coolify://{instance}/overview' }, argument: { name: 'instance', value: 'st' } },
        uuid_app: {
          ref: { type: 'ref/resource', uri: 'coolify://{instance}/application/{uuid}' },
          argument: { name: 'uuid', value: 'app' },
          context: { arguments: { instance: 'staging' } },
        },
      },
    },
    {
      name: 'readonly', entry: entries.readonly, env: single,
      prompts: {
        troubleshoot: ['troubleshoot_application', { query: 'shop-frontend' }],
        estate: ['estate_health', {}],
      },
    },
    {
      // The snapshot's fleet context: instance staging, other "prod".
      name: 'fleet-prod-staging', entry: entries.main,
      env: { COOLIFY_INSTANCES: fleetEnv(fixtureUrl, ['prod', 'staging']) },
      prompts: {
        troubleshoot_fleet: ['troubleshoot_application', { query: 'shop-frontend', instance: 'staging' }],
        estate_fleet: ['estate_health', { instance: 'staging' }],
      },
      listsOnlyPrompts: true,
    },
    {
      // The snapshot's bigFleet: instance staging, others "prod", "dev" (plural footer).
      name: 'fleet-prod-staging-dev', entry: entries.main,
      env: { COOLIFY_INSTANCES: fleetEnv(fixtureUrl, ['prod', 'staging', 'dev']) },
      prompts: { estate_big_fleet: ['estate_health', { instance: 'staging' }] },
      listsOnlyPrompts: true,
    },
  ];
}

async function capture(config, fixture) {
  const out = join(here, config.name);
  rmSync(out, { recursive: true, force: true });
  await fixture.reset();
  const client = startServer(config.entry, config.env);
  const init = await result(client, 'initialize', {
    protocolVersion: PROTOCOL_VERSION,
    capabilities: {},
    clientInfo: { name: 'coolify-golden-capture', version: '1.0.0' },
  });
  client.notify('notifications/initialized');
  writeJson(join(out, 'initialize.json'), init);
  writeText(join(out, 'instructions.txt'), init.instructions ?? '');

  const tools = await result(client, 'tools/list', {});
  writeJson(join(out, 'tools-roster.json'), tools.tools.map((t) => t.name));
  // The prompt-only fleet configurations have the same tools as `fleet`; keep the tree small.
  if (!config.listsOnlyPrompts) {
    writeJson(join(out, 'tools-list.json'), tools);
    for (const tool of tools.tools) writeJson(join(out, 'tools', `${tool.name}.json`), tool);
  }
  writeJson(join(out, 'prompts-list.json'), await result(client, 'prompts/list', {}));
  if (!config.listsOnlyPrompts) {
    writeJson(join(out, 'resources-list.json'), await result(client, 'resources/list', {}));
    writeJson(join(out, 'resource-templates-list.json'), await result(client, 'resources/templates/list', {}));
  }

  // Prompts first after a reset, so the request log proves they make no API call.
  await fixture.reset();
  for (const [variant, [name, args]] of Object.entries(config.prompts ?? {})) {
    const got = await result(client, 'prompts/get', { name, arguments: args });
    writeJson(join(out, 'prompts', `${variant}.json`), { request: { name, arguments: args }, result: got });
    writeText(join(out, 'prompts', `${variant}.txt`), got.messages[0].content.text);
  }
  const afterPrompts = await fixture.requests();
  if (afterPrompts.length !== 0) throw new Error(`${config.name}: prompts made requests: ${JSON.stringify(afterPrompts)}`);

  let n = 0;
  for (const uri of config.reads ?? []) {
    const got = await client.request('resources/read', { uri });
    writeJson(join(out, 'reads', `read-${++n}.json`), { request: { uri }, response: got.result ?? { error: got.error } });
  }
  for (const [name, params] of Object.entries(config.completions ?? {})) {
    const got = await client.request('completion/complete', params);
    writeJson(join(out, 'reads', `complete-${name}.json`), { request: params, response: got.result ?? { error: got.error } });
  }
  for (const [name, args] of Object.entries(config.toolCalls ?? {})) {
    const got = await client.request('tools/call', { name, arguments: args });
    writeJson(join(out, 'reads', `call-${name}.json`), { request: { name, arguments: args }, response: got.result ?? { error: got.error } });
  }
  // Fixture request log without volatile headers (ports in Host, node version in User-Agent).
  const requests = (await fixture.requests()).map(({ method, path, query, body, auth }) => ({ method, path, query, body, auth }));
  writeJson(join(out, 'fixture-requests.json'), requests);
  const stderr = await client.close();
  if (stderr.trim()) log(`${config.name} stderr: ${stderr.trim().slice(0, 400)}`);
  log(`${config.name}: ${tools.tools.length} tools captured`);
  return { name: config.name, env: Object.keys(config.env).sort(), tools: tools.tools.length };
}

async function main() {
  const entries = installReference();
  const fixture = await startFixture();
  try {
    const configs = configurations(fixture.url, entries);
    const summary = [];
    for (const config of configs) summary.push(await capture(config, fixture));
    writeJson(join(here, 'manifest.json'), {
      reference: `${REFERENCE}@${REFERENCE_VERSION}`,
      node: process.version,
      protocolVersion: PROTOCOL_VERSION,
      fixture: 'crates/coolify-fixture (FIXTURE_TOKEN, SPEC §7.1 data)',
      configurations: summary,
    });
  } finally {
    fixture.stop();
  }
}

main().catch((error) => {
  process.stderr.write(`capture failed: ${error.stack ?? error}\n`);
  process.exit(1);
});
