#!/usr/bin/env python3
"""Peer for `scripts/bench rss`: what `coyote mcp tools SERVER` does, with the official Python
SDK (`mcp`, in scripts/bench's git-ignored venv) — connect to one stdio server, list its tools
(every page), print them one a line, close. Its peak RSS is read from outside by peak_rss.py.

Usage: py_list_tools.py -- CMD ARGS...
"""
import asyncio
import sys

from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client


async def main():
    dashes, command, *args = sys.argv[1:]
    if dashes != "--":
        sys.exit(__doc__)
    params = StdioServerParameters(command=command, args=args)
    with open("/dev/null", "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                cursor = None
                while True:
                    params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
                    page = await session.list_tools(params=params)
                    for tool in page.tools:
                        print(f"{tool.name}\t{tool.description or ''}")
                    cursor = getattr(page, "next_cursor", None) or getattr(page, "nextCursor", None)
                    if not cursor:
                        break


asyncio.run(main())
