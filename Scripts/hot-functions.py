#!/usr/bin/env python3
"""Writes Linker/hot-functions.order: the functions that unitool's everyday commands run, in the
order the linker lays them out first (Package.swift, `releaseLinking`; Linker/README.md says why).

    ./Scripts/hot-functions.py      # after `swift build -c release --static-swift-stdlib`
                                    # of unitool and bench-unitool; Scripts/bench.sh runs it

Each command runs once under Valgrind's callgrind (Debian: valgrind), which sees every function
executed, however rarely: the start-up's one-time code is what a sampling profiler misses and what
touches the most code pages. The commands run against `unitool demo serve` in a throwaway
sandbox, on stripped copies of the binaries (Valgrind cannot read the toolchain's debug
information); the addresses it reports are mapped back to names through the unstripped
binaries' symbol tables. Functions are listed in the order the commands first ran them, start-up
first.
"""
import bisect
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUTPUT = os.path.join(ROOT, "Linker", "hot-functions.order")
INITIALIZE = ('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",'
              '"capabilities":{},"clientInfo":{"name":"hot-functions","version":"1"}}}')


def symbols(binary):
    """The binary's functions as (start, size, name), sorted by address."""
    listing = subprocess.run(["nm", "-n", "-S", "--defined-only", binary], check=True, capture_output=True, text=True).stdout
    found = []
    for line in listing.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[2] in "tTwW":
            found.append((int(parts[0], 16), int(parts[1], 16), parts[3]))
    found.sort()
    return found


def executed(profile, stripped_name, table):
    """The names of the functions of the stripped binary that a callgrind profile saw run, in the
    order the profile names them."""
    starts = [start for start, _, _ in table]
    names, seen, current = [], set(), None
    for line in open(profile, errors="replace"):
        if line.startswith("ob="):
            current = line[3:].strip()
        elif line.startswith("fn=") and current and os.path.basename(current) == stripped_name:
            label = line[3:].strip().split("'")[0].split()[0] if line[3:].strip() else ""
            if not label.startswith("0x"):
                continue
            address = int(label, 16)
            index = bisect.bisect_right(starts, address) - 1
            if index >= 0:
                start, size, name = table[index]
                if start <= address < start + max(size, 1) and name not in seen:
                    seen.add(name)
                    names.append(name)
    return names


def main():
    if shutil.which("valgrind") is None:
        sys.exit("hot-functions: valgrind is needed (Debian: apt install valgrind)")
    bin_dir = subprocess.run(["swift", "build", "-c", "release", "--static-swift-stdlib", "--show-bin-path"], cwd=ROOT,
                             check=True, capture_output=True, text=True).stdout.strip()
    work = tempfile.mkdtemp(prefix="hot-functions-")
    try:
        binaries = {}
        for name in ["unitool", "bench-unitool"]:
            source = os.path.join(bin_dir, name)
            if not os.path.exists(source):
                sys.exit(f"hot-functions: build {name} first: swift build -c release --static-swift-stdlib --product {name}")
            stripped = os.path.join(work, name + "-stripped")
            shutil.copy(source, stripped)
            subprocess.run(["strip", stripped], check=True)
            binaries[name] = (source, stripped)
        env = dict(os.environ, NO_COLOR="1")
        for folder in ["config", "state", "cache", "data"]:
            env[f"XDG_{folder.upper()}_HOME"] = os.path.join(work, folder)
        for variable in ["XDG_RUNTIME_DIR", "DBUS_SESSION_BUS_ADDRESS", "DISPLAY"]:
            env.pop(variable, None)
        demo = subprocess.Popen([binaries["unitool"][0], "demo", "serve"], env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, text=True)
        try:
            env["UNITOOL_DEMO_URL"] = demo.stdout.readline().strip().rstrip("/")
            unitool = binaries["unitool"][1]
            subprocess.run([unitool, "--portal", "demo", "terms", "accept"], env=env, check=True, capture_output=True)
            rpc = "\n".join([
                '{"jsonrpc":"2.0","id":1,"method":"session.fetch","params":{"portal":"demo","url":"/grades?term=2026-spring"}}',
                '{"jsonrpc":"2.0","id":2,"method":"recipes.run","params":{"portal":"demo","recipe":"grades","options":{"term":"2026-spring"}}}',
            ]) + "\n"
            mcp = "\n".join([
                INITIALIZE, '{"jsonrpc":"2.0","method":"notifications/initialized"}',
                '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"grades","arguments":{"term":"2026-spring"}}}',
            ]) + "\n"
            # Start-up first, then the commands people run every day, the front ends, the watch.
            scenarios = [
                ("unitool", ["--version"], None, False),
                ("unitool", ["--help"], None, False),
                ("unitool", ["--portal", "demo", "courses"], None, True),  # the cold login
                ("unitool", ["--portal", "demo", "grades", "--term", "current", "--json"], None, False),
                ("unitool", ["--portal", "demo", "grades"], None, False),
                ("unitool", ["--portal", "demo", "loans"], None, False),
                ("unitool", ["--portal", "demo", "news"], None, False),
                ("unitool", ["--portal", "demo", "today"], None, False),
                ("unitool", ["rpc"], rpc, False),
                ("unitool", ["mcp", "--portal", "demo"], mcp, False),
                ("bench-unitool", ["watch", env["UNITOOL_DEMO_URL"], "12", os.path.join(work, "watch")], None, False),
            ]
            order, listed, tables = [], set(), {}
            for index, (program, arguments, stdin, cold) in enumerate(scenarios):
                if cold:
                    shutil.rmtree(os.path.join(work, "state", "unitool", "sessions"), ignore_errors=True)
                source, stripped = binaries[program]
                profile = os.path.join(work, f"profile-{index}")
                subprocess.run(["valgrind", "--tool=callgrind", "--demangle=no", "--compress-strings=no", "--compress-pos=no",
                                f"--callgrind-out-file={profile}.%p", stripped] + arguments, env=env, input=stdin, text=True,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
                table = tables.setdefault(program, symbols(source))
                before = len(order)
                for output in sorted(f for f in os.listdir(work) if f.startswith(f"profile-{index}.")):
                    for name in executed(os.path.join(work, output), os.path.basename(stripped), table):
                        if name not in listed:
                            listed.add(name)
                            order.append(name)
                print(f"{program} {' '.join(arguments[:3])}: {len(order) - before} functions more", file=sys.stderr)
        finally:
            demo.terminate()
            demo.wait()
        with open(OUTPUT + ".tmp", "w") as file:
            file.write("\n".join(order) + "\n")
        os.replace(OUTPUT + ".tmp", OUTPUT)
        # SwiftPM does not know the order file is an input of the link: the binaries go, so
        # that the next build links them again with the new order.
        for source, _ in binaries.values():
            os.remove(source)
        print(f"wrote {OUTPUT}: {len(order)} functions; build unitool and bench-unitool again to use it", file=sys.stderr)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
