"""Drives `unitool mcp` with fastmcp's client (from PyPI), as assistants built on fastmcp do:
its own stdio transport, started with the SDK's default environment plus what docs/MCP.md tells
users to add (see mcp_client.py).

usage: fastmcp_client.py UNITOOL [ARGS...]
Prints one JSON object: the tools, the grades, and a refused renewal as fastmcp reports it.
"""
import asyncio
import json
import os
import sys
import warnings

warnings.simplefilter("ignore")

from fastmcp import Client  # noqa: E402
from fastmcp.client.transports import StdioTransport  # noqa: E402
from fastmcp.exceptions import ToolError  # noqa: E402
from mcp.client.stdio import get_default_environment  # noqa: E402

DOCUMENTED = ["XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "DBUS_SESSION_BUS_ADDRESS"]
TEST_ONLY = ["UNITOOL_DEMO_URL", "XDG_RUNTIME_DIR", "NO_COLOR"]


async def main():
    command, arguments = sys.argv[1], sys.argv[2:]
    environment = get_default_environment()
    for name in DOCUMENTED + TEST_ONLY:
        if name in os.environ:
            environment[name] = os.environ[name]
    report = {}
    async with Client(StdioTransport(command=command, args=arguments, env=environment)) as client:
        tools = await client.list_tools()
        report["tools"] = sorted(tool.name for tool in tools)
        grades = await client.call_tool("grades", {"term": "2026-spring"})
        report["grades"] = grades.structured_content
        try:
            await client.call_tool("loans_renew", {"barcode": "31000104"})
            report["refused"] = None
        except ToolError as error:
            report["refused"] = str(error)
    print(json.dumps(report, ensure_ascii=False))


if __name__ == "__main__":
    asyncio.run(main())
