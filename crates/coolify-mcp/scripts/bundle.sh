#!/usr/bin/env bash
# Build the install bundles of coolify-mcp:
#
#   crates/coolify-mcp/scripts/bundle.sh --binary PATH --out DIR [--version V] [--url URL]
#
# writes into DIR
#   manifest.json                         the MCP Bundle manifest (manifest_version 0.3)
#   coolify-mcp-<V>-linux-x64.mcpb        a zip of manifest.json + server/coolify-mcp, which
#                                         Claude Desktop installs by double-click or drag-and-drop
#   server.json                           the MCP registry entry: the .mcpb as its package, with
#                                         its SHA-256 and the download URL (--url; default the
#                                         repository's release URL for V)
# V defaults to the workspace version. PATH is the binary to ship (build it first, e.g.
# crates/coolify-mcp/scripts/build-small.sh or cargo build --release -p coolify-mcp).
# Needs: sha256sum, and zip or python3 for the archive. Nothing is downloaded.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
BINARY="" OUT="" VERSION="" URL=""
while [ $# -gt 0 ]; do
  case "$1" in
    --binary) BINARY="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    --version) VERSION="$2"; shift 2 ;;
    --url) URL="$2"; shift 2 ;;
    -h | --help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "bundle.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
  esac
done
[ -n "$BINARY" ] && [ -n "$OUT" ] || { echo "bundle.sh: --binary and --out are required" >&2; exit 2; }
[ -x "$BINARY" ] || { echo "bundle.sh: $BINARY is not an executable" >&2; exit 1; }
if [ -z "$VERSION" ]; then
  VERSION="$(sed -n 's/^version = "\(.*\)"/\1/p' "$ROOT/Cargo.toml" | head -n1)"
fi
REPO="$(sed -n 's/^repository = "\(.*\)"/\1/p' "$ROOT/Cargo.toml" | head -n1)"
NAME="coolify-mcp-$VERSION-linux-x64.mcpb"
URL="${URL:-$REPO/releases/download/v$VERSION/$NAME}"

mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
STAGE="$(mktemp -d)"
trap 'rm -rf "$STAGE"' EXIT
mkdir -p "$STAGE/server"
cp "$BINARY" "$STAGE/server/coolify-mcp"
chmod 0755 "$STAGE/server/coolify-mcp"

cat >"$STAGE/manifest.json" <<JSON
{
  "manifest_version": "0.3",
  "name": "coolify-mcp",
  "display_name": "Coolify",
  "version": "$VERSION",
  "description": "Manage a self-hosted Coolify: applications, databases, services, deployments and servers, with human confirmation before destructive operations.",
  "long_description": "An MCP server for the Coolify PaaS. 45 tools cover reads, deployments, environment variables, backups and diagnostics; destructive operations ask you first. Set COOLIFY_MCP_READONLY=true for a read-only server.",
  "author": { "name": "coyote maintainers" },
  "repository": { "type": "git", "url": "$REPO" },
  "license": "Apache-2.0",
  "keywords": ["coolify", "paas", "devops", "self-hosted"],
  "server": {
    "type": "binary",
    "entry_point": "server/coolify-mcp",
    "mcp_config": {
      "command": "\${__dirname}/server/coolify-mcp",
      "args": [],
      "env": {
        "COOLIFY_BASE_URL": "\${user_config.coolify_base_url}",
        "COOLIFY_ACCESS_TOKEN": "\${user_config.coolify_access_token}",
        "COOLIFY_MCP_READONLY": "\${user_config.read_only}"
      }
    }
  },
  "tools_generated": true,
  "prompts_generated": true,
  "compatibility": { "platforms": ["linux"] },
  "user_config": {
    "coolify_base_url": {
      "type": "string",
      "title": "Coolify URL",
      "description": "The root URL of your Coolify, e.g. https://coolify.example.com (without /api/v1).",
      "required": true
    },
    "coolify_access_token": {
      "type": "string",
      "title": "Coolify API token",
      "description": "An API token from Coolify (Keys & Tokens). Stored by Claude Desktop in the OS keychain.",
      "sensitive": true,
      "required": true
    },
    "read_only": {
      "type": "boolean",
      "title": "Read-only",
      "description": "Register only tools that change nothing.",
      "default": false,
      "required": false
    }
  }
}
JSON

rm -f "$OUT/$NAME"
if command -v zip >/dev/null 2>&1; then
  (cd "$STAGE" && zip -q -X -r "$OUT/$NAME.tmp" manifest.json server)
  mv "$OUT/$NAME.tmp" "$OUT/$NAME"
else
  python3 - "$STAGE" "$OUT/$NAME" <<'PY'
import os, sys, zipfile
stage, dest = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED) as z:
    z.write(os.path.join(stage, "manifest.json"), "manifest.json")
    info = zipfile.ZipInfo("server/coolify-mcp")
    info.external_attr = 0o755 << 16
    with open(os.path.join(stage, "server", "coolify-mcp"), "rb") as f:
        z.writestr(info, f.read(), zipfile.ZIP_DEFLATED)
PY
fi
cp "$STAGE/manifest.json" "$OUT/manifest.json"
SHA="$(sha256sum "$OUT/$NAME" | cut -d' ' -f1)"

cat >"$OUT/server.json" <<JSON
{
  "\$schema": "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json",
  "name": "io.github.coyote/coolify-mcp",
  "description": "Manage a self-hosted Coolify: apps, databases, services, deployments, servers.",
  "version": "$VERSION",
  "repository": { "url": "$REPO", "source": "github" },
  "packages": [
    {
      "registryType": "mcpb",
      "identifier": "$URL",
      "version": "$VERSION",
      "fileSha256": "$SHA",
      "transport": { "type": "stdio" },
      "environmentVariables": [
        { "name": "COOLIFY_BASE_URL", "description": "Root URL of your Coolify (without /api/v1)", "isRequired": true, "format": "string" },
        { "name": "COOLIFY_ACCESS_TOKEN", "description": "Coolify API token", "isRequired": true, "isSecret": true, "format": "string" }
      ]
    }
  ]
}
JSON
echo "wrote $OUT/$NAME, $OUT/manifest.json, $OUT/server.json"
