#!/usr/bin/env python3
"""Fails on a use of an Apple or standard-library API that needs a newer iOS or macOS than the package declares
(Package.swift `platforms:`), in the sources of every library product's closure on Apple platforms, unless the use
is inside code that only runs where the API exists.

Linux's compiler ignores iOS and macOS availability, so nothing else on this machine catches such a use: it would
fail only when a team builds the product for its iOS 16 app. The APIs are the table API_TABLE below, each with the
versions its Apple documentation page gives (the URL beside it).

Usage: scripts/check-availability.py [PACKAGE_DIR]      check the library products' closures (ios)
       scripts/check-availability.py --self-test        check the fixtures in scripts/fixtures/availability
Exit status: 0 no unguarded use, 1 a use needs a guard (each printed as FILE:LINE:COL), 2 usage, or the manifest or
a fixture unreadable.

How a use counts as guarded (a heuristic over the source text, not the compiler's scoping; the self-test pins it):
  - Comments and string literals are removed first; a use is a match of the API's pattern in what remains. APIs of
    a framework (StoreKit, StoreKitTest, Observation, ...) are looked for only in files that import it.
  - Braces are counted. The `{` that follows `if #available(...)` (or `while #available`) opens a block where the
    listed versions hold; after `guard #available(...) else { ... }` they hold for the rest of the enclosing block.
    An `@available(iOS x, macOS y, *)` attribute applies to the next `{` (the body of the declaration it marks); a
    declaration line without a body ends it. `@available(macOS, unavailable)` counts as never running on macOS.
  - A platform missing from the list (`#available(iOS 17, *)` says nothing of macOS) keeps the package's floor:
    library products build for both iOS and macOS, so a use must be safe on both.
  - `#if` branches neither iOS nor macOS compiles are skipped (scripts/swiftsource.py evaluates canImport(...) and
    os(...) conditions; any other condition keeps both branches).
  - Not understood (and so not a guard): `#unavailable`, availability given by an enclosing closure's caller, and
    `@available` on a declaration whose body starts on a later line after a line ending in neither `{` nor a
    continuation.
"""
import importlib.util
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from swiftsource import compiled_lines, strip  # noqa: E402

# name, pattern (on code with comments and strings removed), iOS, macOS, import the file needs (None: any file),
# Apple page. Versions are the first that have the API; a version at or below the package's floor never fails.
API_TABLE = [
    ("Synchronization.Mutex", r"\bMutex\b", (18, 0), (15, 0), None,
     "https://developer.apple.com/documentation/synchronization/mutex"),
    ("Synchronization.Atomic", r"\bAtomic\b(?=\s*[<(.])", (18, 0), (15, 0), None,
     "https://developer.apple.com/documentation/synchronization/atomic"),
    ("TaskExecutor", r"\bTaskExecutor\b", (18, 0), (15, 0), None,
     "https://developer.apple.com/documentation/swift/taskexecutor"),
    ("withTaskExecutorPreference(_:isolation:operation:)", r"\bwithTaskExecutorPreference\b", (18, 0), (15, 0), None,
     "https://developer.apple.com/documentation/swift/withtaskexecutorpreference(_:isolation:operation:)"),
    ("Task(executorPreference:priority:operation:)", r"\bexecutorPreference\s*:", (18, 0), (15, 0), None,
     "https://developer.apple.com/documentation/swift/task/init(executorpreference:priority:operation:)"),
    ("globalConcurrentExecutor", r"\bglobalConcurrentExecutor\b", (18, 0), (15, 0), None,
     "https://developer.apple.com/documentation/swift/globalconcurrentexecutor"),
    ("Int128 / UInt128", r"\bU?Int128\b", (18, 0), (15, 0), None,
     "https://developer.apple.com/documentation/swift/int128"),
    ("RangeSet", r"\bRangeSet\b", (18, 0), (15, 0), None,
     "https://developer.apple.com/documentation/swift/rangeset"),
    ("String(validating:as:)", r"\bString\s*\(\s*validating\s*:", (18, 0), (15, 0), None,
     "https://developer.apple.com/documentation/swift/string/init(validating:as:)"),
    # SwiftStdlib 5.9; the one without `isolation:` is SwiftStdlib 5.8 (iOS 16.4, macOS 13.3), still above the floor.
    ("withDiscardingTaskGroup(returning:isolation:body:)", r"\bwith(?:Throwing)?DiscardingTaskGroup\b", (17, 0), (14, 0),
     None, "https://developer.apple.com/documentation/swift/withdiscardingtaskgroup(returning:isolation:body:)"),
    # Back-deployed (@backDeployed(before: SwiftStdlib 5.9)): usable from iOS 13 and macOS 10.15, so never flagged
    # here; listed so that the table records that it was checked.
    ("AsyncStream.makeStream(of:bufferingPolicy:)", r"\.makeStream\s*\(", (13, 0), (10, 15), None,
     "https://developer.apple.com/documentation/swift/asyncstream/makestream(of:bufferingpolicy:)"),
    ("Observation: @Observable, Observable, withObservationTracking, ObservationRegistrar",
     r"@Observable\b|\bObservable\b|\bwithObservationTracking\b|\bObservationRegistrar\b", (17, 0), (14, 0),
     "Observation", "https://developer.apple.com/documentation/observation"),
    ("SKTestSession.setSimulatedError(_:forAPI:)", r"\.setSimulatedError\s*\(", (17, 0), (14, 0), "StoreKitTest",
     "https://developer.apple.com/documentation/storekittest/sktestsession/setsimulatederror(_:forapi:)"),
    ("SKTestSession.buyProduct(identifier:options:)", r"\.buyProduct\s*\(\s*identifier\s*:", (17, 0), (14, 0),
     "StoreKitTest", "https://developer.apple.com/documentation/storekittest/sktestsession/buyproduct(identifier:options:)"),
    ("SKTestFailures, FailableStoreKitAPI", r"\bSKTestFailures\b|\bFailableStoreKitAPI\b", (17, 0), (14, 0),
     "StoreKitTest", "https://developer.apple.com/documentation/storekittest/sktestfailures"),
    ("StoreKitError.unsupported", r"\.unsupported\b", (18, 4), (15, 4), "StoreKit",
     "https://developer.apple.com/documentation/storekit/storekiterror/unsupported"),
    ("Product.PurchaseOption.winBackOffer(_:)", r"\.winBackOffer\s*\(", (18, 0), (15, 0), "StoreKit",
     "https://developer.apple.com/documentation/storekit/product/purchaseoption/winbackoffer(_:)"),
    ("Product.SubscriptionInfo.winBackOffers", r"\.winBackOffers\b", (18, 0), (15, 0), "StoreKit",
     "https://developer.apple.com/documentation/storekit/product/subscriptioninfo/winbackoffers"),
    ("Product.currentEntitlements, Transaction.currentEntitlements(for:)",
     r"\bcurrentEntitlements\s*\(\s*for\s*:|\.currentEntitlements\b(?<!Transaction\.currentEntitlements)", (18, 4), (15, 4),
     "StoreKit", "https://developer.apple.com/documentation/storekit/product/currententitlements"),
]

UNAVAILABLE = (9999, 0)


def version(text):
    parts = [int(part) for part in text.split(".")[:2]]
    return (parts[0], parts[1] if len(parts) > 1 else 0)


def show(pair):
    return f"{pair[0]}.{pair[1]}"


def availability_list(text):
    """{"iOS": (x, y), "macOS": ...} from the inside of `@available(...)` or `#available(...)`."""
    found = {}
    for platform, rest in re.findall(r"\b(iOS|macOS)\b\s*(?:,\s*)?([^,)]*)", text):
        rest = rest.strip()
        if re.match(r"\d", rest):
            found[platform] = version(rest.split()[0])
        elif "unavailable" in rest:
            found[platform] = UNAVAILABLE
        else:
            match = re.search(r"introduced\s*:\s*([\d.]+)", text[text.find(platform):])
            if match:
                found[platform] = version(match.group(1))
    return found


def imports(code):
    pattern = (r"^[ \t]*(?:@\w+[ \t]+)*(?:public[ \t]+|package[ \t]+|internal[ \t]+)?import[ \t]+"
               r"(?:(?:struct|class|enum|protocol|typealias|func|var|let)[ \t]+)?(\w+)")
    return set(re.findall(pattern, code, re.M))


def check_file(path, display, floor, table):
    """The unguarded uses in one file: (display, line, column, entry)."""
    with open(path, encoding="utf-8") as source:
        code = strip(source.read())
    compiled = compiled_lines(code)
    lines = code.split("\n")
    kept = "\n".join(line if index in compiled else " " * len(line) for index, line in enumerate(lines))
    imported = imports(kept)
    line_starts = [0]
    for line in lines:
        line_starts.append(line_starts[-1] + len(line) + 1)

    def position(offset):
        low, high = 0, len(line_starts) - 1
        while low < high:
            middle = (low + high + 1) // 2
            if line_starts[middle] <= offset:
                low = middle
            else:
                high = middle - 1
        return low + 1, offset - line_starts[low] + 1

    events = []   # (offset, order, kind, payload)
    for match in re.finditer(r"\b(if|while|guard)\s+#available\s*\(([^)]*)\)", kept):
        events.append((match.start(), 0, "guard" if match.group(1) == "guard" else "if", availability_list(match.group(2))))
    for match in re.finditer(r"@available\s*\(([^)]*)\)", kept):
        events.append((match.start(), 0, "attribute", availability_list(match.group(1))))
    for match in re.finditer(r"[{}\n]", kept):
        events.append((match.start(), 1, match.group(0), None))
    for entry in table:
        if entry[4] is not None and entry[4] not in imported:
            continue
        for match in re.finditer(entry[1], kept):
            events.append((match.start(), 2, "use", entry))
    events.sort(key=lambda event: (event[0], event[1]))

    # Each open block: its floors {"iOS": v, "macOS": v}, and what closing it does to the enclosing block.
    scopes = [{"floor": dict(floor), "on_close": None}]
    pending = None         # ("if" | "guard" | "attribute", versions) waiting for its `{`
    attribute_line = None  # the line where an @available attribute's declaration is being read
    found = []
    for offset, _, kind, payload in events:
        current = scopes[-1]["floor"]
        if kind in ("if", "guard", "attribute"):
            pending = (kind, payload)
            attribute_line = None
        elif kind == "{":
            floors = dict(current)
            on_close = None
            if pending and pending[0] in ("if", "attribute"):
                for platform, value in pending[1].items():
                    floors[platform] = max(floors[platform], value)
            elif pending and pending[0] == "guard":
                on_close = pending[1]   # the else block: afterwards the enclosing block has the versions
            pending = None
            scopes.append({"floor": floors, "on_close": on_close})
        elif kind == "}":
            if len(scopes) > 1:
                closed = scopes.pop()
                if closed["on_close"]:
                    for platform, value in closed["on_close"].items():
                        scopes[-1]["floor"][platform] = max(scopes[-1]["floor"][platform], value)
        elif kind == "\n":
            # An attribute's declaration ends at a line with no body and no continuation.
            if pending and pending[0] == "attribute":
                line, _ = position(offset)
                text = lines[line - 1].rstrip()
                declaration = re.sub(r"@available\s*\([^)]*\)", "", text).strip()
                if declaration and not re.search(r"[{(,:>=\[]$|->$", text) and text.count("(") <= text.count(")"):
                    pending = None
        elif kind == "use":
            name, _, ios, macos, _, url = payload
            floors = dict(current)
            if pending and pending[0] == "attribute":
                # A use in the signature of the declaration an @available attribute marks.
                for platform, value in pending[1].items():
                    floors[platform] = max(floors[platform], value)
            if floors["iOS"] >= ios and floors["macOS"] >= macos:
                continue
            line, column = position(offset)
            found.append((display, line, column, payload))
    return found


def load_closure_module():
    spec = importlib.util.spec_from_file_location("closure", os.path.join(HERE, "closure.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def closure_sources(package):
    """The floors the package declares and the Swift files of every library product's closure on ios."""
    closure = load_closure_module()
    data = closure.manifest(package)
    floor = {"iOS": (0, 0), "macOS": (0, 0)}
    for platform in data.get("platforms", []):
        name = {"ios": "iOS", "macos": "macOS"}.get(platform.get("platformName"))
        if name:
            floor[name] = version(platform.get("version", "0"))
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
    files = []
    for name in sorted(names):
        target = targets[name]
        if target["type"] == "system":
            continue
        files.extend(closure.swift_files(closure.target_path(package, target), target.get("exclude", [])))
    return floor, files


def report(found, floor):
    for display, line, column, (name, _, ios, macos, _, url) in found:
        print(f"{display}:{line}:{column}: error: {name} needs iOS {show(ios)} and macOS {show(macos)}; the package "
              f"supports iOS {show(floor['iOS'])} and macOS {show(floor['macOS'])}. Put the use inside "
              f"`if #available(iOS {show(ios)}, macOS {show(macos)}, *)` or a declaration marked "
              f"`@available(iOS {show(ios)}, macOS {show(macos)}, *)`, with a fallback. Apple: {url}")


def self_test():
    """Each fixture marks the lines that must be reported with a trailing `// flagged`; no other may be."""
    directory = os.path.join(HERE, "fixtures", "availability")
    floor = {"iOS": (16, 0), "macOS": (13, 0)}
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
        reported = {line for _, line, _, _ in check_file(path, name, floor, API_TABLE)}
        checked += 1
        for line in sorted(expected - reported):
            print(f"{name}:{line}: error: the check missed this use")
            failures += 1
        for line in sorted(reported - expected):
            print(f"{name}:{line}: error: the check reported a use that is guarded")
            failures += 1
    if not checked:
        print("error: no fixtures found", file=sys.stderr)
        return 2
    print(f"self-test: {checked} fixtures, {failures} wrong")
    return 1 if failures else 0


def main(argv):
    package = os.path.join(HERE, "..")
    if argv == ["--self-test"]:
        return self_test()
    if len(argv) > 1 or (argv and argv[0].startswith("-")):
        print(__doc__, file=sys.stderr)
        return 2
    if argv:
        package = argv[0]
    floor, files = closure_sources(package)
    found = []
    for path in files:
        found.extend(check_file(path, os.path.relpath(path, package), floor, API_TABLE))
    report(found, floor)
    print(f"availability: {len(files)} files of the library products' closures, iOS {show(floor['iOS'])} / "
          f"macOS {show(floor['macOS'])}: {len(found)} unguarded use{'' if len(found) == 1 else 's'}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
