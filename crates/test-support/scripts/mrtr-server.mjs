// A minimal MCP server over stdio speaking only protocol 2026-07-28, for the input_required
// (multi-round-trip request, SEP-2322) tests: `node mrtr-server.mjs LOG`. Its one tool,
// `deploy`, first answers `resultType: "input_required"` with an elicitation and an opaque
// `requestState`; a retry that carries the `requestState` gets a complete result naming the
// answer. Every `tools/call` it receives is appended to LOG as one JSON line, so a test sees
// exactly what the client sent. Written by hand (no SDK) so nothing hides a message.
import { appendFileSync } from "node:fs";
import { createInterface } from "node:readline";

const log = process.argv[2];
const STATE = 'opaque-state-{"step":1}-\u2603';

const send = (message) => process.stdout.write(JSON.stringify(message) + "\n");
const result = (id, value) => send({ jsonrpc: "2.0", id, result: value });

createInterface({ input: process.stdin }).on("line", (line) => {
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    return;
  }
  const { id, method, params } = message;
  if (id === undefined || typeof method !== "string") return;
  if (method === "server/discover") {
    return result(id, {
      resultType: "complete", ttlMs: 0, cacheScope: "private",
      supportedVersions: ["2026-07-28"], capabilities: { tools: {} },
      serverInfo: { name: "mrtr-test", version: "1.0.0" },
    });
  }
  if (method === "tools/list") {
    return result(id, {
      resultType: "complete", ttlMs: 0, cacheScope: "private",
      tools: [{ name: "deploy", description: "Deploys after asking.", inputSchema: { type: "object" },
        annotations: { readOnlyHint: true } }],
    });
  }
  if (method === "tools/call") {
    if (log) appendFileSync(log, JSON.stringify(params) + "\n");
    if (params?.requestState === undefined) {
      return result(id, {
        resultType: "input_required",
        inputRequests: { confirm: { method: "elicitation/create", params: {
          message: "Deploy to production?",
          requestedSchema: { type: "object", properties: { reason: { type: "string", title: "Reason" } },
            required: ["reason"] },
        } } },
        requestState: STATE,
      });
    }
    const answer = params.inputResponses?.confirm ?? {};
    const text = `answer: ${answer.action}` + (answer.content ? ` ${JSON.stringify(answer.content)}` : "");
    return result(id, { resultType: "complete", content: [{ type: "text", text }] });
  }
  send({ jsonrpc: "2.0", id, error: { code: -32601, message: `Method not found: ${method}` } });
});
