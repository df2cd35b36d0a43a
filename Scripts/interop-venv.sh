#!/usr/bin/env bash
# Installs the outside client libraries that the interop tests drive unitool with into
# .build/interop-venv: JSON-RPC clients (python-lsp-jsonrpc, pjrpc), the official Model
# Context Protocol SDK (mcp 1.x) and Playwright (which records logins with Debian's chromium);
# beside it, venvs of their own for the SDK's 2.x and for fastmcp; see Tests/EndToEndTests/Interop/.
# Safe to run again: it installs only what is missing. Prints the venv's python on stdout.
set -euo pipefail
cd "$(dirname "$0")/.."

venv=.build/interop-venv
if [ ! -x "$venv/bin/python" ]; then
    mkdir -p .build
    python3 -m venv "$venv" >&2 || { echo "error: python3 -m venv failed; install python3-venv (Scripts/install-deps.sh)" >&2; exit 1; }
fi
if ! "$venv/bin/python" -c "import pylsp_jsonrpc" 2>/dev/null; then
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "python-lsp-jsonrpc==1.1.2" >&2
fi
if ! "$venv/bin/python" -c "import pjrpc" 2>/dev/null; then
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "pjrpc==2.2.0" >&2
fi
if ! "$venv/bin/python" -c "import mcp" 2>/dev/null; then
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "mcp==1.26.0" >&2
fi
# Playwright drives Debian's chromium (/usr/bin/chromium, Scripts/install-deps.sh) to record
# logins for the tests of 'recipes new --from-har' (Scripts/record-login.py). 1.64.1 is the
# release whose own Chromium is 156, Debian's; its browser download is never used.
if ! "$venv/bin/python" -c "import playwright" 2>/dev/null; then
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "playwright==1.64.1" >&2
fi
# The SDK's 2.x, whose client differs from 1.x's, in a venv of its own beside it.
if [ ! -x "$venv-mcp2/bin/python" ]; then
    python3 -m venv "$venv-mcp2" >&2
fi
if ! "$venv-mcp2/bin/python" -c "import mcp" 2>/dev/null; then
    "$venv-mcp2/bin/python" -m pip install --quiet --disable-pip-version-check "mcp==2.3.0" >&2
fi
# fastmcp's client, as assistants built on fastmcp start a server.
if [ ! -x "$venv-fastmcp/bin/python" ]; then
    python3 -m venv "$venv-fastmcp" >&2
fi
if ! "$venv-fastmcp/bin/python" -c "import fastmcp" 2>/dev/null; then
    "$venv-fastmcp/bin/python" -m pip install --quiet --disable-pip-version-check "fastmcp==2.14.7" >&2
fi
echo "$PWD/$venv/bin/python"
