// Peer for `scripts/bench workflow`: the Node SDK client runs the reference workflow of
// examples/workflow.batch in one process — spawn the server, initialize, list every kind (all
// pages), read each URI of the file's `read` lines, get one prompt, call one tool, close — and
// prints {reads, sum} so the run can be checked.
// Usage: node node_workflow_client.mjs WORKFLOW_FILE -- CMD ARGS...
import { readFileSync } from 'node:fs';
import { Client, StdioClientTransport } from './sdk.mjs';

const [workflow, dashes, command, ...args] = process.argv.slice(2);
if (dashes !== '--' || !command) {
  console.error('usage: node node_workflow_client.mjs WORKFLOW_FILE -- CMD ARGS...');
  process.exit(2);
}
// `read SERVER URI` lines of the workflow file.
const uris = readFileSync(workflow, 'utf8').split('\n')
  .map((line) => line.trim().split(/\s+/))
  .filter((words) => words[0] === 'read')
  .map((words) => words[2]);

const client = new Client({ name: 'bench-node', version: '0.0.0' });
await client.connect(new StdioClientTransport({ command, args, stderr: 'ignore' }));
const all = async (list, key) => {
  const items = [];
  let cursor;
  do {
    const page = await list(cursor === undefined ? {} : { cursor });
    items.push(...page[key]);
    cursor = page.nextCursor;
  } while (cursor);
  return items;
};
await all((p) => client.listTools(p), 'tools');
await all((p) => client.listResources(p), 'resources');
await all((p) => client.listResourceTemplates(p), 'resourceTemplates');
await all((p) => client.listPrompts(p), 'prompts');
for (const uri of uris) await client.readResource({ uri });
await client.getPrompt({ name: 'args-prompt', arguments: { city: 'Paris' } });
const sum = await client.callTool({ name: 'get-sum', arguments: { a: 2, b: 3 } });
await client.close();
console.log(JSON.stringify({ reads: uris.length, sum: sum.content[0].text }));
