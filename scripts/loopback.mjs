// Node preload (used as `NODE_OPTIONS=--import /abs/path/scripts/loopback.mjs`) that keeps every
// TCP server a test starts on the loopback interface.
//
// Why: real peers such as @modelcontextprotocol/server-everything (`app.listen(PORT)`) and the
// conformance suite's mock servers (`listen(0)`) have no host option and bind every interface.
// Our rule is that a server a test starts binds 127.0.0.1 only.
//
// What it does to `net.Server.prototype.listen` (which http/https/express/hono all go through):
// - a TCP listen with no host, an empty/undefined host, or a wildcard host (0.0.0.0, ::) gets
//   host 127.0.0.1;
// - Unix sockets / named pipes (a non-numeric string or `{path}`), inherited handles and `{fd}`
//   are left alone, and so is an explicit non-wildcard host.
// - `server.address()` is available synchronously right after `listen()` returns, as it is
//   for a host-less listen (the conformance suite reads `.port` at once). Node resolves any
//   given host through `dns.lookup`, which answers asynchronously even for an IP literal; so,
//   only while our own listen call runs and only for 127.0.0.1, `dns.lookup` answers inline.
// It prints nothing: stdout belongs to stdio MCP servers.
import dns from 'node:dns';
import net from 'node:net';

const LOOPBACK = '127.0.0.1';
const WILDCARDS = new Set(['', '0.0.0.0', '::', '[::]', '::0']);

const original = net.Server.prototype.listen;
const originalLookup = dns.lookup;
let insideListen = false;

dns.lookup = function lookupLoopbackInline(hostname, options, callback) {
  const cb = typeof options === 'function' ? options : callback;
  if (insideListen && hostname === LOOPBACK && typeof cb === 'function') {
    // Node 20 asks for one address, Node 22 for `{ all: true }` (a list).
    const all = options !== null && typeof options === 'object' && options.all;
    if (all) cb(null, [{ address: LOOPBACK, family: 4 }]);
    else cb(null, LOOPBACK, 4);
    return {};
  }
  return originalLookup.apply(this, arguments);
};

function isPort(value) {
  return (
    value === undefined ||
    value === null ||
    typeof value === 'number' ||
    (typeof value === 'string' && /^\d+$/.test(value))
  );
}

function needsLoopback(host) {
  return host === undefined || host === null || (typeof host === 'string' && WILDCARDS.has(host));
}

function rewrite(args) {
  if (args.length === 0) return [0, LOOPBACK];
  const [first, second] = args;
  if (typeof first === 'function') return [0, LOOPBACK, ...args];
  if (isPort(first)) {
    const rest = args.slice(1);
    if (rest.length === 0) return [first ?? 0, LOOPBACK];
    if (typeof second === 'string') {
      return needsLoopback(second) ? [first, LOOPBACK, ...args.slice(2)] : args;
    }
    if (second === undefined || second === null) return [first ?? 0, LOOPBACK, ...args.slice(2)];
    // (port, backlog, cb) or (port, cb): the host goes before them.
    return [first ?? 0, LOOPBACK, ...rest];
  }
  if (first && typeof first === 'object') {
    const inherited = 'path' in first || 'fd' in first || 'handle' in first || '_handle' in first;
    if (!inherited && needsLoopback(first.host)) {
      return [{ ...first, host: LOOPBACK }, ...args.slice(1)];
    }
  }
  return args;
}

net.Server.prototype.listen = function listenOnLoopback(...args) {
  const outer = insideListen;
  insideListen = true;
  try {
    return original.apply(this, rewrite(args));
  } finally {
    insideListen = outer;
  }
};
