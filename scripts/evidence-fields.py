#!/usr/bin/env python3
"""Lists every evidence field that differs between two runs of the same matrix, with how many records it differs
in and the first case and step where it does: what an intended change of the simulator changed, field by field.
Fields that differ between runs by nature are set aside and signed data is compared by its decoded payload, as
scripts/same-evidence.py does; array positions are folded (`/transactions[]/price`).

Usage: scripts/evidence-fields.py RUN_DIR RUN_DIR
Exit status: 0 the same, 1 fields differ (listed on stdout), 2 usage or runs of different lengths.
"""
import collections
import importlib.util
import json
import os
import sys

_spec = importlib.util.spec_from_file_location("same_evidence", os.path.join(os.path.dirname(__file__), "same-evidence.py"))
same_evidence = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(same_evidence)


def differences(a, b, path, found):
    """Adds (field, kind) for every difference between a and b under path."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            if key not in a:
                found.append((f"{path}/{key}", "added"))
            elif key not in b:
                found.append((f"{path}/{key}", "removed"))
            else:
                differences(a[key], b[key], f"{path}/{key}", found)
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for x, y in zip(a, b):
            differences(x, y, f"{path}[]", found)
    elif a != b:
        found.append((path, "changed" if type(a) is type(b) and not isinstance(a, list) else "reshaped"))


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    left, right = list(same_evidence.records(sys.argv[1])), list(same_evidence.records(sys.argv[2]))
    if len(left) != len(right):
        print(f"error: {len(left)} records vs {len(right)}; run the same matrix in both", file=sys.stderr)
        return 2
    counts = collections.Counter()
    first = {}
    for a, b in zip(left, right):
        found = []
        differences(a, b, "", found)
        for field in sorted(set(found)):
            counts[field] += 1
            first.setdefault(field, f"{a.get('case')} #{a.get('step')}")
    if not counts:
        print(f"the same evidence: {len(left)} records")
        return 0
    for (field, kind), count in sorted(counts.items()):
        print(f"{count:5} of {len(left)}  {kind:8}  {field}  (first: {first[(field, kind)]})")
    return 1


if __name__ == "__main__":
    sys.exit(main())
