#!/usr/bin/env python3
"""docs/ARCHITECTURE.md's promise about the tests: behaviour is tested in process, and the
files that start the real `unitool` executable hold fewer than a fifth of the tests.

A file starts it when it sits in Tests/EndToEndTests (whose tests run the binary, directly or
through its helpers) or names `UniToolProcess.executable` elsewhere. A test is an `@Test`
attribute at the start of a line; a parameterised test counts once, as its file shows it."""

import os
import re
import sys

TEST = re.compile(r"^\s*@Test\b", re.MULTILINE)


def main() -> int:
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests")
    total = spawning = 0
    for folder, _, names in os.walk(root):
        for name in names:
            if not name.endswith(".swift"):
                continue
            path = os.path.join(folder, name)
            text = open(path, encoding="utf-8").read()
            count = len(TEST.findall(text))
            total += count
            relative = os.path.relpath(path, root)
            if relative.startswith("EndToEndTests" + os.sep) or "UniToolProcess.executable" in text:
                spawning += count
    share = spawning / total if total else 0
    print(f"check-test-split: {spawning} of {total} tests ({share:.1%}) are in files that start unitool")
    if share >= 0.2:
        print("check-test-split: a fifth or more; test the behaviour in process (DemoServiceBench, RPC over memory)"
              " and keep the binary for what only a process shows")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
