#!/usr/bin/env python3
"""Drives `unitool rpc --framing content-length` from an outside JSON-RPC library.

python-lsp-jsonrpc (module pylsp_jsonrpc) is the JSON-RPC layer of the Python LSP server: its
stream reader and writer speak LSP's Content-Length framing, and its Endpoint matches answers
to requests by id. If unitool's framing, ids or error objects drift from what such clients
expect, this fails. RPCTests.interopWithPylspJsonrpc runs it; Scripts/interop-venv.sh installs
the library.

Usage: pylsp_jsonrpc_client.py UNITOOL_BINARY
Exit code 0 and "ok" when every check passed; otherwise 1 and what went wrong.
"""

import subprocess
import sys
import threading

from pylsp_jsonrpc.endpoint import Endpoint
from pylsp_jsonrpc.exceptions import JsonRpcException
from pylsp_jsonrpc.streams import JsonRpcStreamReader, JsonRpcStreamWriter

TIMEOUT = 60
MAX_MESSAGE_BYTES = 2_000_000


def fail(message):
    print(f"interop check failed: {message}", file=sys.stderr)
    sys.exit(1)


def expect_error(future, code, what):
    try:
        result = future.result(timeout=TIMEOUT)
    except JsonRpcException as error:
        if error.code != code:
            fail(f"{what}: expected error {code}, got {error.code} ({error.message})")
        return error
    fail(f"{what}: expected error {code}, got the result {result!r}")


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    server = subprocess.Popen(
        [sys.argv[1], "rpc", "--framing", "content-length", "--max-message-bytes", str(MAX_MESSAGE_BYTES)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    progress = []
    writer = JsonRpcStreamWriter(server.stdin)
    endpoint = Endpoint({"$/progress": progress.append}, writer.write)
    reader = JsonRpcStreamReader(server.stdout)
    threading.Thread(target=reader.listen, args=(endpoint.consume,), daemon=True).start()

    try:
        initialized = endpoint.request("initialize", {"clientInfo": {"name": "pylsp-jsonrpc interop"}}).result(timeout=TIMEOUT)
        if initialized["serverInfo"]["name"] != "unitool":
            fail(f"initialize: unexpected serverInfo {initialized['serverInfo']!r}")
        capabilities = initialized["capabilities"]
        if capabilities.get("maxMessageBytes") != MAX_MESSAGE_BYTES:
            fail(f"initialize: maxMessageBytes is {capabilities.get('maxMessageBytes')!r}, the flag said {MAX_MESSAGE_BYTES}")
        if capabilities.get("maxNestingDepth") != 64:
            fail(f"initialize: maxNestingDepth is {capabilities.get('maxNestingDepth')!r}")

        portals = endpoint.request("portals.list", {"progressToken": "p1"}).result(timeout=TIMEOUT)
        if not any(portal["id"] == "demo" for portal in portals):
            fail(f"portals.list: no demo portal in {portals!r}")

        expect_error(endpoint.request("no.such.method"), -32601, "an unknown method")
        wrong_type = expect_error(endpoint.request("recipes.run", {"recipe": 5}), -32602, "a recipe that is a number")
        if (wrong_type.data or {}).get("kind") != "invalid_params":
            fail(f"recipes.run: data.kind is {wrong_type.data!r}")
        expect_error(endpoint.request("shutdown", ["now"]), -32602, "shutdown with array params")

        if endpoint.request("shutdown").result(timeout=TIMEOUT) is not None:
            fail("shutdown: the result is not null")
        expect_error(endpoint.request("portals.list"), -32600, "a request after shutdown")
        endpoint.notify("exit")
        code = server.wait(timeout=TIMEOUT)
        if code != 0:
            fail(f"exit after shutdown: exit code {code}, expected 0")
    finally:
        if server.poll() is None:
            server.kill()
        endpoint.shutdown()
    print("ok")


if __name__ == "__main__":
    main()
