#!/usr/bin/env python3
"""Fails on Linux-only API in Sources/ outside code that only Linux compiles, and on `Process` in the closure of a
library product, which an iOS test bundle cannot link.

Every target must build on macOS (the `matrix` tool, the tests) and the library products on iOS too, so a call that
exists only in Glibc must sit in an `#if` branch Apple platforms skip (`#if canImport(Glibc)`, `#if os(Linux)`), next
to its Darwin spelling. Nothing on this Linux machine compiles the Darwin side, so this check reads the text:

  - `posix_spawn_file_actions_t()` / `posix_spawnattr_t()`: Linux's structs, initialised empty; on Darwin both are
    optional pointers set by posix_spawn_file_actions_init / posix_spawnattr_init.
  - `prctl` and `PR_SET_*` / `PR_GET_*`: Linux's process control.
  - `/proc/` in a path, code or string: Linux's process file system.
  - Glibc-only names: MSG_NOSIGNAL, SOCK_CLOEXEC, SOCK_NONBLOCK, `SOCK_STREAM.rawValue` (Glibc's enum), O_PATH,
    O_TMPFILE, O_DIRECT, epoll, inotify, eventfd, signalfd, pipe2, accept4, memfd_create, gettid, __NR_ numbers.
  - `import Glibc` (or Musl) in an `#if` chain with no branch Apple platforms compile (no Darwin spelling).
  - `Process` (Foundation's), in the sources of a library product's closure on iOS: iOS has no Process.

A finding inside an `#if` branch that neither iOS nor macOS compiles is not one (scripts/swiftsource.py reads the
conditions). Comments never count; string literals count only for `/proc/`.

Usage: scripts/check-portability.py [PACKAGE_DIR]      check Sources/
       scripts/check-portability.py --self-test        check the fixtures in scripts/fixtures/portability
The allow-list scripts/portability-allowlist.txt is empty by design: each line `PATH: NAME` with a reason would
excuse one kind of finding in one file, and an entry that excuses nothing is itself an error.
Exit status: 0 nothing found, 1 findings (each printed as FILE:LINE:COL), 2 usage, or a file unreadable.
"""
import importlib.util
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from swiftsource import compiled_lines, directives, evaluate, strip  # noqa: E402

ALLOWLIST = os.path.join(HERE, "portability-allowlist.txt")

# name, pattern, where it is looked for ("code": comments and strings removed; "text": comments removed),
# what to do instead.
LINUX_ONLY = [
    ("posix_spawn_file_actions_t()", r"\bposix_spawn_file_actions_t\s*\(\s*\)", "code",
     "on Darwin it is an optional pointer: declare `posix_spawn_file_actions_t?` there, then posix_spawn_file_actions_init"),
    ("posix_spawnattr_t()", r"\bposix_spawnattr_t\s*\(\s*\)", "code",
     "on Darwin it is an optional pointer: declare `posix_spawnattr_t?` there, then posix_spawnattr_init"),
    ("prctl", r"\bprctl\b|\bPR_[GS]ET_\w+", "code", "Darwin has no prctl; give the Darwin branch its own answer"),
    ("/proc/", r"/proc/", "text", "Darwin has no /proc; use sysctl, proc_pidinfo or libproc in the Darwin branch"),
    ("a Glibc-only name",
     r"\b(?:MSG_NOSIGNAL|SOCK_CLOEXEC|SOCK_NONBLOCK|O_PATH|O_TMPFILE|O_DIRECT|epoll_\w+|EPOLL\w+|inotify_\w+|"
     r"eventfd|signalfd|pipe2|accept4|memfd_create|gettid|__NR_\w+)\b|\bSOCK_(?:STREAM|DGRAM)\.rawValue\b", "code",
     "spell it for Darwin in a `#if canImport(Darwin)` branch (for example SO_NOSIGPIPE for MSG_NOSIGNAL)"),
]
PROCESS = ("Process", r"\bProcess\b(?=\s*[(.:?!)\]>,]|\s*$)", "code",
           "iOS has no Process: keep process-starting code out of the library products (the tool's targets hold it)")
GLIBC_IMPORT = re.compile(r"^\s*(?:@\w+\s+)?import\s+(Glibc|Musl)\b", re.M)


def line_and_column(text, offset):
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def check_file(path, display, in_product_closure):
    """The findings of one file: (display, line, column, name, advice)."""
    with open(path, encoding="utf-8") as source:
        original = source.read()
    code = strip(original)
    text = strip(original, keep_strings=True)
    compiled = compiled_lines(code)
    found = []
    checks = LINUX_ONLY + ([PROCESS] if in_product_closure else [])
    for name, pattern, where, advice in checks:
        platforms = ("ios",) if name == "Process" else ("ios", "macos")
        usable = compiled if platforms == ("ios", "macos") else compiled_lines(code, platforms)
        for match in re.finditer(pattern, code if where == "code" else text, re.M):
            line, column = line_and_column(code, match.start())
            if line - 1 in usable:
                found.append((display, line, column, name, advice))
    # `import Glibc` needs a sibling branch that Apple platforms compile, where Darwin is imported.
    enclosing = directives(code)
    for match in GLIBC_IMPORT.finditer(code):
        line, column = line_and_column(code, match.start(1))
        stack = enclosing[line - 1] or []
        if stack:
            chain, _ = stack[-1]
            if any(condition is None or any(evaluate(condition, platform) is not False for platform in ("ios", "macos"))
                   for condition in chain):
                continue
        found.append((display, line, column, f"import {match.group(1)}",
                      "wrap it as `#if canImport(Glibc) import Glibc #elseif canImport(Darwin) import Darwin #endif`"))
    return sorted(found, key=lambda finding: (finding[1], finding[2]))


def load_closure_module():
    spec = importlib.util.spec_from_file_location("closure", os.path.join(HERE, "closure.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def product_closure_directories(package):
    """The source directories of the targets in every library product's closure on iOS."""
    closure = load_closure_module()
    data = closure.manifest(package)
    targets = {target["name"]: target for target in data["targets"]}
    names = set()
    for product in data["products"]:
        if "library" not in product["type"]:
            continue
        stack = list(product["targets"])
        while stack:
            name = stack.pop()
            if name in names or name not in targets:
                continue
            names.add(name)
            stack.extend(closure.dependency_names(targets[name], "ios"))
    return {os.path.normpath(closure.target_path(package, targets[name])) for name in names}


def read_allowlist():
    entries = {}
    try:
        with open(ALLOWLIST, encoding="utf-8") as source:
            for number, line in enumerate(source, 1):
                line = line.split("#", 1)[0].strip()
                if not line:
                    continue
                match = re.match(r"(\S+):\s*(.+?)\s+because\s+\S", line)
                if not match:
                    print(f"{os.path.relpath(ALLOWLIST)}:{number}: error: an entry is `PATH: NAME because REASON`",
                          file=sys.stderr)
                    sys.exit(2)
                entries[(match.group(1), match.group(2))] = number
    except OSError as error:
        print(f"error: cannot read {ALLOWLIST}: {error}", file=sys.stderr)
        sys.exit(2)
    return entries


def self_test():
    directory = os.path.join(HERE, "fixtures", "portability")
    failures, checked = 0, 0
    try:
        names = sorted(name for name in os.listdir(directory) if name.endswith(".swift"))
    except OSError as error:
        print(f"error: cannot read the fixtures: {error}", file=sys.stderr)
        return 2
    for name in names:
        path = os.path.join(directory, name)
        with open(path, encoding="utf-8") as source:
            lines = source.read().split("\n")
        expected = {index + 1 for index, line in enumerate(lines) if re.search(r"//\s*flagged\s*$", line)}
        reported = {line for _, line, _, _, _ in check_file(path, name, in_product_closure=True)}
        checked += 1
        for line in sorted(expected - reported):
            print(f"{name}:{line}: error: the check missed this use")
            failures += 1
        for line in sorted(reported - expected):
            print(f"{name}:{line}: error: the check reported portable code")
            failures += 1
    if not checked:
        print("error: no fixtures found", file=sys.stderr)
        return 2
    print(f"self-test: {checked} fixtures, {failures} wrong")
    return 1 if failures else 0


def main(argv):
    if argv == ["--self-test"]:
        return self_test()
    if len(argv) > 1 or (argv and argv[0].startswith("-")):
        print(__doc__, file=sys.stderr)
        return 2
    package = os.path.normpath(argv[0] if argv else os.path.join(HERE, ".."))
    closure_directories = product_closure_directories(package)
    allowed = read_allowlist()
    used = set()
    findings, files = [], 0
    for root, _, names in os.walk(os.path.join(package, "Sources")):
        for name in sorted(names):
            if not name.endswith(".swift"):
                continue
            path = os.path.join(root, name)
            display = os.path.relpath(path, package)
            in_closure = any(os.path.normpath(path).startswith(directory + os.sep) for directory in closure_directories)
            files += 1
            for finding in check_file(path, display, in_closure):
                key = (display, finding[3])
                if key in allowed:
                    used.add(key)
                    continue
                findings.append(finding)
    findings.sort()
    for display, line, column, name, advice in findings:
        print(f"{display}:{line}:{column}: error: {name} is not portable to Apple platforms here; {advice}")
    unused = [key for key in allowed if key not in used]
    for path, name in unused:
        print(f"{os.path.relpath(ALLOWLIST)}:{allowed[(path, name)]}: error: the entry for {name} in {path} excuses "
              f"nothing; remove it")
    per_file = {}
    for display, *_ in findings:
        per_file[display] = per_file.get(display, 0) + 1
    print(f"portability: {files} files under Sources/: {len(findings)} finding{'' if len(findings) == 1 else 's'} in "
          f"{len(per_file)} file{'' if len(per_file) == 1 else 's'}"
          + "".join(f"\n  {count:3} {display}" for display, count in sorted(per_file.items())))
    return 1 if findings or unused else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
