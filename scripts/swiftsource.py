"""Reading Swift source text for the checks in this directory (check-availability.py, check-portability.py):
comments and strings removed with positions kept, and the `#if` branches a platform compiles.

This is text, not the compiler: conditions are evaluated for `canImport(...)`, `os(...)`, `!`, `&&`, `||` and
parentheses; any other condition (a -D flag, `compiler(...)`, `swift(...)`) counts as possibly true, so both of its
branches are read.
"""
import re

# canImport(...) of these is true on every Apple platform this package builds for (iOS and macOS).
APPLE_MODULES = {"Darwin", "Foundation", "Dispatch", "StoreKit", "StoreKitTest", "CryptoKit", "Security",
                 "Observation", "Synchronization", "os", "XCTest", "Testing", "SwiftUI"}
# canImport(...) of these is false on every Apple platform.
NON_APPLE_MODULES = {"Glibc", "Musl", "COpenSSL", "WinSDK", "Android", "WASILibc", "Bionic", "ucrt"}
# Per platform: canImport of these is true only there.
PLATFORM_MODULES = {"ios": {"UIKit"}, "macos": {"AppKit"}}
OS_NAMES = {"ios": "iOS", "macos": "macOS"}
KNOWN_OS = {"iOS", "macOS", "tvOS", "watchOS", "visionOS", "Linux", "Windows", "Android", "WASI", "FreeBSD",
            "OpenBSD", "Haiku"}
APPLE_PLATFORMS = ("ios", "macos")


def strip(text, keep_strings=False):
    """`text` with comments (and, unless `keep_strings`, string literals) blanked: same length, same line breaks."""
    out, i, n = [], 0, len(text)
    while i < n:
        if text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            out.append(" " * (end - i))
            i = end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append(re.sub(r"[^\n]", " ", text[i:end]))
            i = end
        elif text.startswith('"""', i):
            end = text.find('"""', i + 3)
            end = n if end < 0 else end + 3
            out.append(text[i:end] if keep_strings else re.sub(r"[^\n]", " ", text[i:end]))
            i = end
        elif text[i] == '"':
            j = i + 1
            while j < n and text[j] not in '"\n':
                j += 2 if text[j] == "\\" else 1
            end = min(j + 1, n)
            out.append(text[i:end] if keep_strings else " " * (end - i))
            i = end
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def evaluate(condition, platform):
    """True, False or None (cannot tell) for an `#if` condition when compiling for `platform` (ios, macos)."""
    tokens = re.findall(r"canImport\s*\(\s*[\w.]+[^)]*\)|os\s*\(\s*\w+\s*\)|&&|\|\||!|\(|\)|[\w.]+", condition)
    position = 0

    def atom():
        nonlocal position
        if position >= len(tokens):
            return None
        token = tokens[position]
        position += 1
        if token == "!":
            value = atom()
            return None if value is None else not value
        if token == "(":
            value = disjunction()
            if position < len(tokens) and tokens[position] == ")":
                position += 1
            return value
        match = re.match(r"canImport\s*\(\s*([\w.]+)", token)
        if match:
            name = match.group(1).split(".")[0]
            if name in APPLE_MODULES:
                return True
            if name in NON_APPLE_MODULES:
                return False
            if any(name in modules for modules in PLATFORM_MODULES.values()):
                return name in PLATFORM_MODULES.get(platform, set())
            return None
        match = re.match(r"os\s*\(\s*(\w+)\s*\)", token)
        if match:
            name = match.group(1)
            return name == OS_NAMES[platform] if name in KNOWN_OS else None
        return None

    def conjunction():
        nonlocal position
        value = atom()
        while position < len(tokens) and tokens[position] == "&&":
            position += 1
            other = atom()
            value = False if value is False or other is False else None if value is None or other is None else True
        return value

    def disjunction():
        nonlocal position
        value = conjunction()
        while position < len(tokens) and tokens[position] == "||":
            position += 1
            other = conjunction()
            value = True if value is True or other is True else None if value is None or other is None else False
        return value

    return disjunction()


def directives(code):
    """The `#if` chains of `code`: for each line index, the chains enclosing it, innermost last, as
    (chain, branch index); each chain is a list of its branches' conditions (`None` for `#else`)."""
    enclosing, stack = [], []
    for line in code.split("\n"):
        match = re.match(r"\s*#(if|elseif|else|endif)\b(.*)", line)
        if match:
            kind, rest = match.group(1), match.group(2).strip()
            if kind == "if":
                stack.append(([rest], 0))
            elif kind in ("elseif", "else") and stack:
                chain, _ = stack[-1]
                chain.append(rest if kind == "elseif" else None)
                stack[-1] = (chain, len(chain) - 1)
            elif kind == "endif" and stack:
                stack.pop()
            enclosing.append(None)   # the directive line itself holds no code
            continue
        enclosing.append(list(stack))
    return enclosing


def branch_compiled(chain, index, platform):
    """Whether branch `index` of `chain` can be compiled for `platform` (False only when surely not)."""
    for earlier in chain[:index]:
        if earlier is not None and evaluate(earlier, platform) is True:
            return False
    condition = chain[index]
    return condition is None or evaluate(condition, platform) is not False


def compiled_lines(code, platforms=APPLE_PLATFORMS):
    """Line indexes (0-based) of code that at least one of `platforms` may compile."""
    compiled = set()
    for index, stack in enumerate(directives(code)):
        if stack is None:
            continue
        if any(all(branch_compiled(chain, branch, platform) for chain, branch in stack) for platform in platforms):
            compiled.add(index)
    return compiled
