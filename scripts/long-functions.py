#!/usr/bin/env python3
"""Lists functions in every source folder (system/, lib/, raster/, import/, cli/, bench/,
tests/) longer than a limit (default 80 lines).

A function is a definition whose body opens at the end of a line at column 0
or 2 (namespace or class scope) and closes with a brace at the same column.
A "// long: <reason>" line in the comment block right above a definition
states why it is longer; those are listed apart. Exit 1 when an unexplained one is found.
Usage: scripts/long-functions.py [LIMIT]
"""
import pathlib, re, sys

limit = int(sys.argv[1]) if len(sys.argv) > 1 else 80
root = pathlib.Path(__file__).resolve().parent.parent
bad, explained = [], []
folders = ("system", "lib", "raster", "import", "cli", "bench", "tests")
for path in sorted(p for folder in folders for ext in ("*.cpp", "*.h")
                   for p in (root / folder).rglob(ext) if "node_modules" not in p.parts):
    lines = path.read_text().split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        m = re.match(r"^( {0,2})[A-Za-z_].*\)\s*(const)?\s*(noexcept)?\s*\{$", line)
        if m and not re.match(r"^\s*(if|for|while|switch|namespace|struct|class|enum)\b", line):
            indent = m.group(1)
            start = i
            while start > 0 and lines[start - 1].startswith(indent) and "(" in lines[start - 1] \
                    and not lines[start - 1].strip().endswith((";", "}", "{")) \
                    and not lines[start - 1].strip().startswith("//"):
                start -= 1
            j = i + 1
            while j < len(lines) and lines[j] != indent + "}" and lines[j] != indent + "};":
                j += 1
            n = j - start + 1
            if n > limit:
                # The comment block above (past a template line) may say why.
                k = start - 1
                while k >= 0 and lines[k].strip().startswith("template"):
                    k -= 1
                block = []
                while k >= 0 and lines[k].strip().startswith("//"):
                    block.append(lines[k].strip())
                    k -= 1
                reason = next((b for b in block if b.startswith("// long:")), "")
                rel = path.relative_to(root)
                entry = f"{rel}:{start + 1}: {n} lines: {lines[start].strip()[:70]}"
                (explained if reason.startswith("// long:") else bad).append(entry)
            i = j + 1
            continue
        i += 1
for e in explained:
    print("explained", e)
for e in bad:
    print("LONG", e)
sys.exit(1 if bad else 0)
