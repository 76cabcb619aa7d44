#!/usr/bin/env node
// The `coolify-mcp` command of the npm launcher package (scripts/release): runs the native
// binary from the platform package npm installed beside it as an optional dependency — the one
// whose name ends in -<platform>-<arch> (the esbuild/biome pattern: no install script, no
// download, no build). stdin/stdout/stderr are passed through, so MCP over stdio works as with
// the binary itself; its exit status (or signal) becomes ours.
"use strict";
const { spawnSync } = require("child_process");
const pkg = require("../package.json");

const platform = `${process.platform}-${process.arch}`;
const exe = process.platform === "win32" ? "coolify-mcp.exe" : "coolify-mcp";
const names = Object.keys(pkg.optionalDependencies || {});
const name = names.find((n) => n.endsWith(`-${platform}`));
if (!name) {
  process.stderr.write(
    `coolify-mcp: no prebuilt binary for ${platform} in ${pkg.name}@${pkg.version} ` +
      `(built for: ${names.map((n) => n.replace(/^.*coolify-mcp-/, "")).join(", ") || "none"}); ` +
      "build it from source: cargo install --locked --path crates/coolify-mcp\n",
  );
  process.exit(1);
}
let binary;
try {
  binary = require.resolve(`${name}/bin/${exe}`);
} catch {
  process.stderr.write(
    `coolify-mcp: the package ${name} is not installed; npm skips optional dependencies ` +
      "with --omit=optional or --no-optional: install again without it\n",
  );
  process.exit(1);
}
const run = spawnSync(binary, process.argv.slice(2), { stdio: "inherit" });
if (run.error) {
  process.stderr.write(`coolify-mcp: cannot run ${binary}: ${run.error.message}\n`);
  process.exit(1);
}
if (run.signal) process.kill(process.pid, run.signal);
process.exit(run.status === null ? 1 : run.status);
