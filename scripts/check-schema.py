#!/usr/bin/env python3
"""Checks matrices against schema/matrix.schema.json with the `jsonschema` package (draft 2020-12).

    check-schema.py --schema schema/matrix.schema.json --samples DIR [MATRIX...]

- The schema itself must be a valid draft 2020-12 schema.
- Every MATRIX must validate.
- Every sample listed in DIR/verdicts.json must get the schema verdict written there: "valid" samples must
  validate; "warning" and "invalid" samples must not (the schema is the --strict form of the format). The
  Swift test MatrixCLITests/SchemaSampleTests checks the same list against `matrix validate`.

Exit status 0 when everything agrees, 1 otherwise, 2 when the jsonschema package is missing.
"""
import argparse
import json
import sys
from pathlib import Path

try:
    from jsonschema import Draft202012Validator
except ImportError:
    print("error: the jsonschema package is not installed (pip install jsonschema)", file=sys.stderr)
    sys.exit(2)


def problems(validator, document):
    """Every schema error of a document, as 'pointer: message' lines."""
    found = []
    for error in sorted(validator.iter_errors(document), key=lambda e: list(map(str, e.absolute_path))):
        pointer = "/" + "/".join(str(part) for part in error.absolute_path)
        found.append(f"{pointer}: {error.message}")
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--schema", required=True)
    parser.add_argument("--samples", help="a folder with verdicts.json and the samples it lists")
    parser.add_argument("matrices", nargs="*")
    args = parser.parse_args()

    schema = json.loads(Path(args.schema).read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    validator = Draft202012Validator(schema)
    failures = 0

    for name in args.matrices:
        found = problems(validator, json.loads(Path(name).read_text(encoding="utf-8")))
        if found:
            failures += 1
            print(f"FAIL {name} does not match the schema:", file=sys.stderr)
            for line in found[:20]:
                print(f"    {line}", file=sys.stderr)
        else:
            print(f"ok   {name}")

    if args.samples:
        folder = Path(args.samples)
        verdicts = json.loads((folder / "verdicts.json").read_text(encoding="utf-8"))["samples"]
        for sample in verdicts:
            found = problems(validator, json.loads((folder / sample["file"]).read_text(encoding="utf-8")))
            accepted = not found
            expected = sample["verdict"] == "valid"
            if accepted == expected:
                print(f"ok   sample {sample['file']} ({sample['verdict']})")
            else:
                failures += 1
                said = "accepts it" if accepted else "rejects it: " + "; ".join(found[:3])
                print(f"FAIL sample {sample['file']} is {sample['verdict']}, but the schema {said}", file=sys.stderr)

    checked = len(args.matrices) + (len(verdicts) if args.samples else 0)
    print(f"{checked} documents checked against {args.schema}: {failures} disagreement{'s' if failures != 1 else ''}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
