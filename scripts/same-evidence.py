#!/usr/bin/env python3
"""Checks that two runs of the same matrix recorded the same evidence: every record equal once the fields that
differ between runs by nature are set aside (the run id, wall-clock times, and ECDSA signatures, which are
randomised: each JWS is compared by its decoded payload, nested JWS included).

Usage: scripts/same-evidence.py RUN_DIR RUN_DIR
Exit status: 0 the same, 1 a difference (the first one is printed), 2 usage.
"""
import base64
import json
import sys


def payloads(value):
    """The value with every compact JWS replaced by its decoded payload, recursively."""
    if isinstance(value, dict):
        return {key: payloads(item) for key, item in value.items()}
    if isinstance(value, list):
        return [payloads(item) for item in value]
    if isinstance(value, str) and value.startswith("eyJ") and value.count(".") == 2:
        payload = value.split(".")[1]
        return payloads(json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))))
    return value


def records(run_dir):
    with open(run_dir + "/evidence.jsonl", encoding="utf-8") as lines:
        for line in lines:
            record = json.loads(line)
            for key in ("run", "wallStart", "wallEnd"):
                record.pop(key, None)
            yield payloads(record)


def first_difference(a, b, path=""):
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            found = first_difference(a.get(key), b.get(key), f"{path}/{key}")
            if found:
                return found
        return None
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for index, (x, y) in enumerate(zip(a, b)):
            found = first_difference(x, y, f"{path}/{index}")
            if found:
                return found
        return None
    return None if a == b else f"{path}: {json.dumps(a)[:120]} vs {json.dumps(b)[:120]}"


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    left, right = list(records(sys.argv[1])), list(records(sys.argv[2]))
    if len(left) != len(right):
        print(f"error: {len(left)} records vs {len(right)}", file=sys.stderr)
        return 1
    for number, (a, b) in enumerate(zip(left, right), start=1):
        difference = first_difference(a, b)
        if difference:
            print(f"error: record {number} differs at {difference}", file=sys.stderr)
            return 1
    print(f"the same evidence: {len(left)} records")
    return 0


if __name__ == "__main__":
    sys.exit(main())
