#!/usr/bin/env python3
"""Writes a large acceptance matrix for benchmarks: the release matrix's cases, repeated under new ids
until COUNT cases, each padded with `observe` steps to about STEPS steps per case on average. With
--renewals, one long case instead: a monthly subscription bought, then renewed COUNT times, access checked
after each renewal.

usage: bench/generate-matrix.py COUNT OUT.json [--steps-per-case 8 | --renewals]
"""
import argparse, json, os

here = os.path.dirname(os.path.abspath(__file__))
parser = argparse.ArgumentParser()
parser.add_argument("count", type=int)
parser.add_argument("out")
parser.add_argument("--steps-per-case", type=int, default=8)
parser.add_argument("--renewals", action="store_true")
args = parser.parse_args()

with open(os.path.join(here, "..", "matrices", "release.json")) as f:
    release = json.load(f)
release["catalog"] = os.path.abspath(os.path.join(here, "..", "matrices", "Products.storekit"))
release.pop("$schema", None)
cases = []
if args.renewals:
    renewal = next(c for c in release["cases"] if c["id"] == "renewal/plus-monthly")
    product = "com.example.storekitmatrix.plus.monthly"
    renewal["id"] = f"renewal/{args.count}-renewals"
    renewal["steps"] = renewal["steps"][:2] + [{"action": "renew", "product": product, "expect": {"access": ["plus"]}}] * args.count
    cases.append(renewal)
    # The release matrix's profiles select cases by tags this one case may not have.
    release.pop("profiles", None)
for i in range(0 if args.renewals else args.count):
    case = json.loads(json.dumps(release["cases"][i % len(release["cases"])]))
    case["id"] = f"{case['id']}#{i}"
    while len(case["steps"]) < args.steps_per_case:
        case["steps"].append({"action": "observe"})
    cases.append(case)
release["cases"] = cases
with open(args.out, "w") as f:
    json.dump(release, f)
print(f"{args.out}: {len(cases)} cases, {sum(len(c['steps']) for c in cases)} steps")
