#!/usr/bin/env python3
"""Peer for `scripts/bench workflow`: the official Python SDK (`mcp`, installed by scripts/bench
into a git-ignored venv) runs the reference workflow of examples/workflow.batch in one process:
spawn the server, initialize, list every kind (all pages), read each URI of the file's `read`
lines, get one prompt, call one tool, close. Prints {reads, sum} so the run can be checked.

Usage: py_workflow_client.py WORKFLOW_FILE -- CMD ARGS...
"""
import asyncio
import json
import sys

from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client


async def every_page(list_page, key):
    items, cursor = [], None
    while True:
        params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
        page = await list_page(params=params)
        items.extend(getattr(page, key))
        cursor = page.next_cursor
        if not cursor:
            return items


async def main():
    workflow, dashes, command, *args = sys.argv[1:]
    if dashes != "--":
        sys.exit(__doc__)
    with open(workflow) as f:
        uris = [w[2] for w in (line.split() for line in f) if w and w[0] == "read"]
    params = StdioServerParameters(command=command, args=args)
    with open("/dev/null", "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                await every_page(session.list_tools, "tools")
                await every_page(session.list_resources, "resources")
                await every_page(session.list_resource_templates, "resource_templates")
                await every_page(session.list_prompts, "prompts")
                for uri in uris:
                    await session.read_resource(uri)
                await session.get_prompt("args-prompt", {"city": "Paris"})
                result = await session.call_tool("get-sum", {"a": 2, "b": 3})
    print(json.dumps({"reads": len(uris), "sum": result.content[0].text}))


asyncio.run(main())
