#!/usr/bin/env bash
# Build the small distribution binary of coolify-mcp:
#
#   crates/coolify-mcp/scripts/build-small.sh        # -> target/<profile>/coolify-mcp
#
# Kept for the commands in docs/coolify-mcp.md: it is `scripts/dist coolify-mcp` (the workspace's
# `[profile.dist]`, static non-PIE linking, start-up functions first from a callgrind session
# against coolify-fixture; see that script) in its own profile directory. Env: PROFILE (default
# dist-small).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
PROFILE="${PROFILE:-dist-small}" exec "$ROOT/scripts/dist" coolify-mcp
