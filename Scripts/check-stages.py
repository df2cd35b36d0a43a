#!/usr/bin/env python3
"""Checks that the stages of UniToolKit depend one way only (docs/ARCHITECTURE.md, "The stages").

Each folder of Sources/UniToolKit is a stage; the files directly in it are the base every stage
may use. A stage may name the types of the stages before it in STAGES, never of one after it.
The check reads the source as text: the types, protocols and type aliases each folder declares
at the top level, then every identifier of every file (comments and string literals left out)
that names one declared in another folder. Members added to another stage's type by an
extension are not followed: name the type, and the rule sees it.

Exit 0 when every dependency points backwards; 1, with each one that does not, otherwise.
"""
import os
import re
import sys

STAGES = ["Storage", "Recipes", "Session", "Login", "Extraction", "Output", "Recording", "Terms", "Config", "History", "Watch",
          "Search", "Day", "Service"]
BASE = "(base)"

DECLARATION = re.compile(
    r"^(?:@\w+\s+)*(?:public\s+|package\s+|internal\s+|fileprivate\s+|private\s+)?(?:final\s+)?"
    r"(?:struct|enum|class|protocol|actor|typealias)\s+([A-Z]\w*)", re.M)
IDENTIFIER = re.compile(r"(?<![\w.])([A-Z]\w*)")


def code_only(text):
    """The text with comments and string literals blanked (interpolations are kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
        elif text.startswith('"""', i):
            j = text.find('"""', i + 3)
            i = n if j < 0 else j + 3
            out.append('""')
        elif text[i] == '"':
            j, depth = i + 1, 0
            while j < n and text[j] != "\n":
                if text[j] == "\\" and text.startswith("\\(", j):
                    depth += 1
                    j += 2
                    start = j
                    while j < n and depth:
                        depth += {"(": 1, ")": -1}.get(text[j], 0)
                        j += 1
                    out.append(" " + text[start:j - 1] + " ")
                    continue
                if text[j] == "\\":
                    j += 2
                    continue
                if text[j] == '"':
                    break
                j += 1
            i = j + 1
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def stage_of(relative):
    parts = relative.split(os.sep)
    return parts[0] if len(parts) > 1 else BASE


def main():
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Sources", "UniToolKit")
    files = {}
    for folder, _, names in os.walk(root):
        for name in names:
            if name.endswith(".swift"):
                path = os.path.join(folder, name)
                files[os.path.relpath(path, root)] = code_only(open(path, encoding="utf-8").read())
    owner = {}
    for relative, code in files.items():
        for name in DECLARATION.findall(code):
            owner.setdefault(name, stage_of(relative))
    unknown = sorted({stage_of(r) for r in files} - set(STAGES) - {BASE})
    if unknown:
        print(f"check-stages: folders not in STAGES: {', '.join(unknown)}; add them in their place")
        return 1
    rank = {BASE: -1, **{stage: index for index, stage in enumerate(STAGES)}}
    problems = []
    for relative, code in sorted(files.items()):
        stage = stage_of(relative)
        for number, line in enumerate(code.split("\n"), 1):
            for name in IDENTIFIER.findall(line):
                used = owner.get(name)
                if used and used != stage and rank[used] > rank[stage]:
                    problems.append(f"{relative}:{number}: {stage} uses {name} of {used}, a later stage")
    for problem in problems:
        print(problem)
    if problems:
        print(f"check-stages: {len(problems)} uses of a later stage; move the type to the stage it belongs to")
        return 1
    print(f"check-stages: {len(files)} files, {len(STAGES)} stages, every dependency points backwards")
    return 0


if __name__ == "__main__":
    sys.exit(main())
