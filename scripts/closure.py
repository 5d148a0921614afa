#!/usr/bin/env python3
"""Measures what each library product pulls into a team's build: the targets of its transitive closure on a
platform (dependency conditions applied, as SwiftPM applies them), their Swift lines, and whether the closure
holds a system library or code that starts processes or archives evidence, which an iOS test bundle cannot link.

Usage: scripts/closure.py [--platform linux|macos|ios] [--check] [--check-lines] [PACKAGE_DIR]
  --platform     the platform whose dependency conditions apply (default: linux)
  --check        fail (exit 1) when a product's closure on macos or ios holds a system library target or a target
                 whose sources name `Process`, `posix_spawn`, `fork` or the archive code: a test bundle on an iOS
                 simulator links everything a product holds
  --check-lines  fail (exit 1) when a product's closure has more Swift lines than LIMITS gives it
Exit status: 0 measured (and within what was checked), 1 a check failed, 2 usage or the manifest unreadable.
"""
import json
import os
import re
import subprocess
import sys

LIMITS = {"AppHarness": 18_000, "SimulatedStoreKit": 15_000}
# Names that mean a process is started or evidence archived: none may appear in a library product's closure on
# Apple platforms. Matched as words in code, comments and strings removed.
FORBIDDEN_ON_APPLE = re.compile(r'\b(Process|posix_spawn\w*|fork|execv\w*|RunArchive|TarReader)\b')


def manifest(package):
    try:
        out = subprocess.run(["swift", "package", "--package-path", package, "dump-package"],
                             check=True, capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError) as error:
        print(f"error: cannot read the manifest: {error}", file=sys.stderr)
        sys.exit(2)
    return json.loads(out)


def dependency_names(target, platform):
    """The names of the package targets `target` depends on, on `platform`."""
    names = []
    for dependency in target.get("dependencies", []):
        (kind, value), = dependency.items()
        if kind not in ("byName", "target"):
            continue
        name, condition = value[0], value[-1]
        platforms = (condition or {}).get("platformNames")
        if platforms and platform not in platforms:
            continue
        names.append(name)
    return names


def target_path(package, target):
    if target.get("path"):
        return os.path.join(package, target["path"])
    return os.path.join(package, "Sources", target["name"])


def swift_files(directory, excluded):
    for root, _, files in os.walk(directory):
        for file in sorted(files):
            path = os.path.join(root, file)
            if file.endswith(".swift") and not any(path.startswith(os.path.join(directory, e)) for e in excluded):
                yield path


def strip(text):
    text = re.sub(r'/\*.*?\*/', '', text, flags=re.S)
    text = re.sub(r'"""(?:.|\n)*?"""', '""', text)
    text = re.sub(r'"(?:[^"\\\n]|\\.)*"', '""', text)
    return re.sub(r'//.*', '', text)


def main(argv):
    platform, check, check_lines, package = "linux", False, False, os.path.join(os.path.dirname(__file__), "..")
    arguments = list(argv)
    while arguments:
        argument = arguments.pop(0)
        if argument == "--platform" and arguments:
            platform = arguments.pop(0)
        elif argument == "--check":
            check = True
        elif argument == "--check-lines":
            check_lines = True
        elif not argument.startswith("-"):
            package = argument
        else:
            print(__doc__, file=sys.stderr)
            return 2
    if platform not in ("linux", "macos", "ios"):
        print(__doc__, file=sys.stderr)
        return 2
    data = manifest(package)
    targets = {target["name"]: target for target in data["targets"]}
    lines, flagged = {}, {}
    for name, target in targets.items():
        if target["type"] == "system":
            lines[name], flagged[name] = 0, "a system library"
            continue
        total, reasons = 0, set()
        for path in swift_files(target_path(package, target), target.get("exclude", [])):
            with open(path, encoding="utf-8") as source:
                text = source.read()
            total += text.count("\n")
            for match in FORBIDDEN_ON_APPLE.finditer(strip(text)):
                reasons.add(f"{match.group(1)} in {os.path.relpath(path, package)}")
        lines[name] = total
        if reasons:
            flagged[name] = ", ".join(sorted(reasons)[:3])
    problems = 0
    print(f"library products on {platform}: closure targets and Swift lines")
    for product in data["products"]:
        if "library" not in product["type"]:
            continue
        closure, stack = set(), list(product["targets"])
        while stack:
            name = stack.pop()
            if name in closure or name not in targets:
                continue
            closure.add(name)
            stack.extend(dependency_names(targets[name], platform))
        total = sum(lines[name] for name in closure)
        limit = LIMITS.get(product["name"])
        verdict = ""
        if limit is not None:
            verdict = f" (limit {limit:,})"
            if total > limit:
                verdict += " OVER"
                if check_lines:
                    problems += 1
        print(f"  {product['name']}: {total:,} lines in {len(closure)} targets{verdict}")
        print(f"    {', '.join(sorted(closure, key=lambda n: -lines[n]))}")
        if platform != "linux":
            for name in sorted(closure):
                if name in flagged:
                    print(f"    error: {name} cannot be linked by an iOS test bundle: {flagged[name]}")
                    if check:
                        problems += 1
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
