#!/usr/bin/env python3
"""Checks that every target's declared dependencies (Package.swift) are exactly the package modules its sources
import: a module imported but not declared builds only by accident of the build order, and one declared but never
imported is a dependency the graph in Package.swift claims falsely.

Usage: scripts/check-imports.py [PACKAGE_DIR]
Exit status: 0 declared equals imported for every target, 1 a difference (each one is printed), 2 usage.
"""
import os
import re
import sys

TARGET = re.compile(r'\.(target|testTarget|executableTarget|systemLibrary)\(\s*name:\s*"(\w+)"(.*?)\)\s*(?:,|\])', re.S)
DEPENDENCIES = re.compile(r'dependencies:\s*\[(.*?)\]', re.S)
IMPORT = re.compile(r'^\s*(?:@testable\s+|@_exported\s+|@_implementationOnly\s+|public\s+|package\s+|internal\s+)?import\s+(?:struct\s+|class\s+|enum\s+|func\s+)?(\w+)', re.M)


def targets(manifest):
    """(kind, name, declared dependencies, path if given) of every target in Package.swift."""
    found = []
    for kind, name, rest in TARGET.findall(manifest):
        match = DEPENDENCIES.search(rest)
        declared = re.findall(r'"(\w+)"', match.group(1)) if match else []
        path = re.search(r'path:\s*"([^"]+)"', rest)
        found.append((kind, name, declared, path.group(1) if path else None))
    return found


def drawn_graph(manifest):
    """The graph Package.swift's comment draws: `//   Target → Dependency, …`, a line ending in a comma continuing
    on the next."""
    graph = {}
    lines = [line[2:].strip() for line in manifest.splitlines() if line.startswith("//")]
    index = 0
    while index < len(lines):
        match = re.match(r'(\w+)\s*→\s*(.*)', lines[index])
        index += 1
        if not match:
            continue
        text = match.group(2)
        while text.endswith(",") and index < len(lines):
            text += " " + lines[index]
            index += 1
        # A name may carry a note in parentheses, such as `COpenSSL (Linux only)` for a conditional dependency.
        names = [re.sub(r'\s*\(.*\)$', '', name.strip()) for name in text.split(",")]
        graph[match.group(1)] = [] if text.strip() == "(nothing)" else [name for name in names if name]
    return graph


def imports(directory):
    """The modules imported by the Swift files under `directory`, with a file that imports each."""
    found = {}
    for root, _, files in os.walk(directory):
        for file in sorted(files):
            if not file.endswith(".swift"):
                continue
            path = os.path.join(root, file)
            with open(path, encoding="utf-8") as source:
                text = re.sub(r'/\*.*?\*/', '', source.read(), flags=re.S)
            # A file built only where StoreKit Testing exists imports Apple's StoreKit, not the package's module of
            # the same name (the look-alike's).
            apple_only = re.match(r'\s*(//[^\n]*\n\s*)*#if canImport\(StoreKitTest\)', text) is not None
            text = re.sub(r'//.*', '', text)
            for module in IMPORT.findall(text):
                if apple_only and module == "StoreKit":
                    continue
                found.setdefault(module, path)
    return found


def main():
    if len(sys.argv) > 2:
        print(__doc__, file=sys.stderr)
        return 2
    package = sys.argv[1] if len(sys.argv) == 2 else os.path.join(os.path.dirname(__file__), "..")
    with open(os.path.join(package, "Package.swift"), encoding="utf-8") as manifest:
        text = manifest.read()
    declared_targets = targets(text)
    names = {name for _, name, _, _ in declared_targets}
    problems = 0
    drawn = drawn_graph(text)
    for kind, name, declared, _ in declared_targets:
        if kind == "testTarget":
            continue
        if name not in drawn:
            print(f"{name}: missing from the graph in Package.swift's comment")
            problems += 1
        elif drawn[name] != declared:
            print(f"{name}: the comment draws {', '.join(drawn[name]) or '(nothing)'}; the target declares {', '.join(declared) or '(nothing)'}")
            problems += 1
    for kind, name, declared, path in declared_targets:
        if kind == "systemLibrary":
            continue
        folder = os.path.join(package, path) if path else os.path.join(package, "Tests" if kind == "testTarget" else "Sources", name)
        imported = {module: path for module, path in imports(folder).items() if module in names and module != name}
        for module in sorted(set(imported) - set(declared)):
            print(f"{name}: imports {module} (in {os.path.relpath(imported[module], package)}) but does not declare it")
            problems += 1
        for module in sorted(set(declared) - set(imported)):
            print(f"{name}: declares {module} but no source of it imports it")
            problems += 1
    if problems:
        print(f"{problems} difference{'s' if problems != 1 else ''} between Package.swift and the imports", file=sys.stderr)
        return 1
    print(f"declared dependencies equal imported modules in all {len(declared_targets)} targets")
    return 0


if __name__ == "__main__":
    sys.exit(main())
