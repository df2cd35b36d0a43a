"""Drives `unitool mcp` with the official Model Context Protocol SDK for Python (`mcp` from
PyPI), as an AI assistant's client would, for unitool's interop tests.

usage: mcp_client.py SCENARIO UNITOOL [ARGS...]
  session:  initialize, list the tools and resources, call grades and loans_renew, read a resource
  refusals: call grades, and grades with a password argument, and report the tools' errors
  tools:    list the tools and their annotations only (nothing is called)
  resources: list the resources, subscribe to the grades' last answer, call grades twice, and
            report the notifications the server sent and the list after
  typed:    list the tools, then call every one that only reads, with the arguments its schema
            requires (an example, a choice or the default), and check each structuredContent
            against the tool's outputSchema with jsonschema
  confirm-accept, confirm-decline, confirm-cancel: call library_request and loans_renew-all with
            an elicitation callback that answers so, and report what the user was asked
  confirm-none: call library_request without an elicitation callback, then again with
            confirm: true, as a host does once its person agreed
  campus:   list the tools, then call the campus app's other screens (attendance, syllabus by
            code and by search, menu, menu-pdf, coop-hours, links) and library_request
Prints one JSON object with what happened.

The server is started as a client starts it: with the SDK's default environment (HOME, LOGNAME,
PATH, SHELL, TERM, USER), plus the entries docs/MCP.md tells users to add to the server's `env`
(the XDG folders, the D-Bus session), plus the test's pointer to the demo it runs. Nothing else of
the test's environment reaches the server.
"""
import asyncio
import json
import os
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import get_default_environment, stdio_client
try:
    from mcp.shared.exceptions import McpError
except ImportError:  # the SDK's 2.x names it MCPError
    from mcp.shared.exceptions import MCPError as McpError


# What docs/MCP.md says to put in the server's env, and the test's demo.
DOCUMENTED = ["XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "DBUS_SESSION_BUS_ADDRESS"]
TEST_ONLY = ["UNITOOL_DEMO_URL", "XDG_RUNTIME_DIR", "NO_COLOR"]


def server_environment():
    environment = get_default_environment()
    for name in DOCUMENTED + TEST_ONLY:
        if name in os.environ:
            environment[name] = os.environ[name]
    return environment


def field(value, camel, snake):
    """A field of the SDK's models: camelCase in the 1.x SDK, snake_case in 2.x."""
    return getattr(value, camel) if hasattr(value, camel) else getattr(value, snake, None)


async def call(session, name, arguments, progress=None):
    try:
        result = await session.call_tool(name, arguments, progress_callback=progress)
        text = " ".join(item.text for item in result.content if getattr(item, "type", "") == "text")
        return {
            "ok": True, "structured": field(result, "structuredContent", "structured_content"),
            "is_error": bool(field(result, "isError", "is_error")), "text": text,
        }
    except McpError as error:
        detail = getattr(error, "error", error)
        return {"ok": False, "code": getattr(detail, "code", None), "message": getattr(detail, "message", str(error))}


async def describe_tools(session):
    """Every tool by name: its input schema and whether it is marked destructive or read-only."""
    tools = await session.list_tools()
    return {
        tool.name: {
            "schema": field(tool, "inputSchema", "input_schema"),
            "destructive": bool(tool.annotations and field(tool.annotations, "destructiveHint", "destructive_hint")),
            "read_only": bool(tool.annotations and field(tool.annotations, "readOnlyHint", "read_only_hint")),
        }
        for tool in tools.tools
    }


def arguments_for(schema):
    """Arguments a tool's inputSchema requires, from its own examples, choices or defaults (a
    search's words from a small list); None when a required one offers none. "code or search"
    (anyOf) takes the first it can fill."""
    properties = schema.get("properties", {})
    # Free text the schema cannot offer an example of, as a model would fill it for the demo.
    words = {"query": "theory", "search": "theory"}

    def value(name):
        spec = properties.get(name, {})
        for key in ("examples", "enum"):
            if spec.get(key):
                return spec[key][0]
        return spec.get("default", words.get(name))

    required = list(schema.get("required", []))
    for alternative in schema.get("anyOf", []):
        fillable = [name for name in alternative.get("required", []) if value(name) is not None]
        if fillable:
            required.append(fillable[0])
            break
    arguments = {}
    for name in required:
        if value(name) is None:
            return None
        arguments[name] = value(name)
    return arguments


async def typed_calls(session):
    """Every read-only tool called once (grades three ways), its answer checked against its
    outputSchema with jsonschema; descriptions and annotations reported for the test to check."""
    import jsonschema
    listed = await session.list_tools()
    tools, checks = {}, []
    for tool in listed.tools:
        output = field(tool, "outputSchema", "output_schema")
        annotations = tool.annotations
        tools[tool.name] = {
            "description": tool.description, "has_output_schema": output is not None,
            "read_only": bool(annotations and field(annotations, "readOnlyHint", "read_only_hint")),
            "destructive": bool(annotations and field(annotations, "destructiveHint", "destructive_hint")),
            "open_world": bool(annotations and field(annotations, "openWorldHint", "open_world_hint")),
        }
        if output is not None:
            jsonschema.Draft202012Validator.check_schema(output)
        if not tools[tool.name]["read_only"]:
            continue
        schema = field(tool, "inputSchema", "input_schema")
        base = arguments_for(schema)
        if base is None:
            checks.append({"tool": tool.name, "skipped": "a required argument offers no example"})
            continue
        variants = [base]
        if tool.name == "grades":
            variants += [dict(base, term="all"), dict(base, term="all", summary=True)]
        for arguments in variants:
            result = await call(session, tool.name, arguments)
            check = {"tool": tool.name, "arguments": arguments, "is_error": result.get("is_error"), "text": result.get("text", "")[:300]}
            if output is not None and result.get("ok") and not result.get("is_error"):
                errors = [error.message for error in jsonschema.Draft202012Validator(output).iter_errors(result["structured"])]
                check["valid"] = not errors
                check["errors"] = errors[:3]
                check["records"] = len((result["structured"] or {}).get("records", []))
            checks.append(check)
    return {"tools": tools, "checks": checks}


async def main():
    scenario, command, arguments = sys.argv[1], sys.argv[2], sys.argv[3:]
    parameters = StdioServerParameters(command=command, args=arguments, env=server_environment())
    report = {}
    asked = []

    async def answer(context, params):
        """The user's answer to the server's question: what the scenario's name says."""
        from mcp.types import ElicitResult
        asked.append({"message": params.message, "schema": field(params, "requestedSchema", "requested_schema")})
        return ElicitResult(action=scenario.split("-", 1)[1], content={} if scenario == "confirm-accept" else None)

    callbacks = {"elicitation_callback": answer} if scenario in ("confirm-accept", "confirm-decline", "confirm-cancel") else {}
    notifications = []

    async def on_message(message):
        """The server's notifications, as the SDK hands them to a client's message handler."""
        root = getattr(message, "root", None)
        if root is not None and hasattr(root, "method"):
            params = getattr(root, "params", None)
            notifications.append(" ".join([root.method, str(getattr(params, "uri", "") or "")]).strip())

    if scenario == "resources":
        callbacks["message_handler"] = on_message
    async with stdio_client(parameters) as (read, write):
        async with ClientSession(read, write, **callbacks) as session:
            initialized = await session.initialize()
            report["server"] = field(initialized, "serverInfo", "server_info").name
            if scenario == "session":
                report["tools"] = await describe_tools(session)
                progress = []

                async def on_progress(value, total, message):
                    progress.append(message)

                report["grades"] = await call(session, "grades", {"term": "current"}, on_progress)
                report["progress"] = progress
                report["renew"] = await call(session, "loans_renew", {"barcode": "31000103"})
                resources = await session.list_resources()
                report["resources"] = [str(resource.uri) for resource in resources.resources]
                read = await session.read_resource("unitool://demo/records/grades")
                report["resource_text"] = read.contents[0].text
            elif scenario == "campus":
                report["tools"] = await describe_tools(session)
                calls = {
                    "attendance": ("attendance", {}),
                    "syllabus": ("syllabus", {"code": "CS-320", "lang": "ja"}),
                    "syllabus_search": ("syllabus", {"search": "theory"}),
                    "syllabus_neither": ("syllabus", {}),
                    "menu": ("menu", {"cafeteria": "North"}),
                    "menu_pdf": ("menu-pdf", {}),
                    "coop_hours": ("coop-hours", {"on": "2026-12-24"}),
                    "links": ("links", {"section": "Career"}),
                    "library_request": ("library_request", {"title": "Gödel, Escher, Bach", "isbn": "978-0-465-02656-2", "confirm": True}),
                    "library": ("library", {}),
                }
                for key, (name, arguments) in calls.items():
                    report[key] = await call(session, name, arguments)
            elif scenario == "tools":
                tools = await session.list_tools()
                report["tools"] = {
                    tool.name: {
                        "destructive": bool(tool.annotations and field(tool.annotations, "destructiveHint", "destructive_hint")),
                        "read_only": bool(tool.annotations and field(tool.annotations, "readOnlyHint", "read_only_hint")),
                        "description": tool.description,
                    }
                    for tool in tools.tools
                }
            elif scenario == "resources":
                before = await session.list_resources()
                report["before"] = [str(resource.uri) for resource in before.resources]
                await session.subscribe_resource("unitool://demo/records/grades")
                report["first"] = await call(session, "grades", {"term": "current"})
                report["after_first"] = list(notifications)
                report["second"] = await call(session, "grades", {"term": "current"})
                after = await session.list_resources()
                report["after"] = [str(resource.uri) for resource in after.resources]
                report["notifications"] = notifications
            elif scenario == "typed":
                report.update(await typed_calls(session))
            elif scenario.startswith("confirm-"):
                book = {"title": "Gödel, Escher, Bach", "isbn": "978-0-465-02656-2"}
                if scenario != "confirm-none":
                    # A model's own confirm: true is no answer from the user when the client can ask.
                    report["model_confirms"] = await call(session, "library_request", dict(book, confirm=True))
                report["request"] = await call(session, "library_request", book)
                if scenario == "confirm-none":
                    report["confirmed"] = await call(session, "library_request", dict(book, confirm=True))
                else:
                    report["renew_all"] = await call(session, "loans_renew-all", {})
                report["asked"] = asked
            else:
                report["grades"] = await call(session, "grades", {})
                report["with_password"] = await call(session, "grades", {"password": "hunter2"})
    print(json.dumps(report, ensure_ascii=False))


if __name__ == "__main__":
    asyncio.run(main())
