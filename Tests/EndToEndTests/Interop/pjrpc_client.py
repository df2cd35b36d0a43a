"""Drives `unitool rpc` with pjrpc (from PyPI), a JSON-RPC client that sends id 1 on every call:
each call's id is reused the moment the previous answer arrives. Several sessions at once, each
on a `unitool rpc` of its own, keep the machine busy.

usage: pjrpc_client.py UNITOOL SESSIONS CALLS
Prints one JSON object: per session, how many calls were answered with a result, and the errors.
"""
import json
import subprocess
import sys
import threading

from pjrpc.client import AbstractClient
from pjrpc.client.exceptions import JsonRpcError


class StdioClient(AbstractClient):
    """pjrpc over a child's stdin and stdout, one JSON text per line."""

    def __init__(self, command):
        super().__init__()
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)

    def _request(self, request_text, is_notification, request_kwargs):
        self.process.stdin.write(request_text + "\n")
        self.process.stdin.flush()
        if is_notification:
            return None
        while True:
            line = self.process.stdout.readline()
            if not line:
                raise RuntimeError("unitool rpc ended without answering")
            if '"id"' in line:
                return line

    def close(self):
        self.process.stdin.close()
        self.process.wait(timeout=30)


def session(unitool, calls, report, index):
    client = StdioClient([unitool, "rpc"])
    answered, errors = 0, []
    for _ in range(calls):
        try:
            client.call("portals.list")
            answered += 1
        except JsonRpcError as error:
            errors.append(str(error))
    client.close()
    report[index] = {"answered": answered, "errors": errors[:3]}


def main():
    unitool, sessions, calls = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    report = {}
    threads = [threading.Thread(target=session, args=(unitool, calls, report, index)) for index in range(sessions)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    print(json.dumps({"calls": calls, "sessions": [report[index] for index in range(sessions)]}))


if __name__ == "__main__":
    main()
