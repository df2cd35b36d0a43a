#!/usr/bin/env python3
"""A complete unitool JSON-RPC client in the Python standard library alone.

It starts `unitool rpc`, asks for the demo university's grades and prints them. Read it next to
docs/RPC.md: it is what a GUI or an editor extension does, minus the GUI.

    python3 Examples/rpc_client.py                      # unitool from PATH
    python3 Examples/rpc_client.py --unitool .build/debug/unitool --term 2026-spring
"""
import argparse
import itertools
import json
import subprocess
import sys


class UnitoolError(Exception):
    """An error answer: unitool's message, its kind and hint, and the exit code the command line
    would have used (docs/RPC.md, "Errors")."""

    def __init__(self, error):
        data = error.get("data") or {}
        super().__init__(error.get("message", "unknown error"))
        self.code = error.get("code")
        self.kind = data.get("kind", "")
        self.hint = data.get("hint")
        self.exit_code = data.get("exit_code", 1)


class UnitoolClient:
    """JSON-RPC 2.0 over the stdin and stdout of `unitool rpc`, one JSON text per line."""

    def __init__(self, executable):
        # stderr is left to the terminal: unitool logs there, never on stdout.
        self.process = subprocess.Popen(
            [executable, "rpc"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, encoding="utf-8"
        )
        self.ids = itertools.count(1)

    def call(self, method, **params):
        request_id = next(self.ids)
        message = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
        self.process.stdin.write(json.dumps(message) + "\n")
        self.process.stdin.flush()
        # Responses may come out of order, and $/progress notifications may come between them.
        for line in self.process.stdout:
            answer = json.loads(line)
            if answer.get("id") != request_id:
                continue
            if "error" in answer:
                raise UnitoolError(answer["error"])
            return answer["result"]
        raise UnitoolError({"message": "unitool rpc ended without answering", "data": {"kind": "internal"}})

    def close(self):
        self.call("shutdown")
        self.process.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "exit"}) + "\n")
        self.process.stdin.close()
        return self.process.wait(timeout=30)


def cell(value):
    """A JSON value as a table cell: nothing for null, whole numbers without '.0'."""
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--unitool", default="unitool", help="the unitool executable")
    parser.add_argument("--portal", default="demo")
    parser.add_argument("--term", default="current")
    args = parser.parse_args()

    try:
        client = UnitoolClient(args.unitool)
    except OSError as error:
        print(f"rpc_client.py: error: cannot start {args.unitool}: {error.strerror}", file=sys.stderr)
        print("  hint: build unitool first, or give its path with --unitool", file=sys.stderr)
        return 1
    try:
        server = client.call("initialize", clientInfo={"name": "rpc_client.py"})
        print(f"connected to unitool {server['serverInfo']['version']}", file=sys.stderr)
        result = client.call("recipes.run", portal=args.portal, recipe="grades", options={"term": args.term})
    except UnitoolError as error:
        # The same two lines, and the same exit code, as the command line would give.
        print(f"rpc_client.py: error: {error}", file=sys.stderr)
        if error.hint:
            print(f"  hint: {error.hint}", file=sys.stderr)
        return error.exit_code
    finally:
        try:
            client.close()
        except (UnitoolError, OSError, subprocess.TimeoutExpired):
            client.process.kill()

    columns = ["term", "course", "credits", "grade"]
    rows = [[cell(record.get(c)) for c in columns] for record in result["records"]]
    widths = [max([len(c)] + [len(r[i]) for r in rows]) for i, c in enumerate(columns)]
    print("  ".join(c.ljust(w) for c, w in zip(columns, widths)))
    for row in rows:
        print("  ".join(v.ljust(w) for v, w in zip(row, widths)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
