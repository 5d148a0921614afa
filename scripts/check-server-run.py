#!/usr/bin/env python3
"""Checks a server run's evidence against the outcome CI expects of a reference backend variant.

Usage: scripts/check-server-run.py RUN_DIR EXPECTATION
  all-pass            every step passed
  revocations-fail    exactly the refund and revokeFamilySharing steps failed; the rest passed or were blocked after them
  some-revocations-fail  at least one refund or revokeFamilySharing step failed, and nothing else did
Also checks that every delivery of the run was acknowledged (SUCCESS) unless a step failed for it, and that every
notification sent with --signing-faults (origin signingFault) was refused.
Exit status: 0 as expected, 1 not, 64 usage.
"""
import json
import os
import sys

REVOKING = {"refund", "revokeFamilySharing"}


def main():
    if len(sys.argv) != 3 or sys.argv[2] not in ("all-pass", "revocations-fail", "some-revocations-fail"):
        print(__doc__, file=sys.stderr)
        return 64
    run_dir, expectation = sys.argv[1], sys.argv[2]
    with open(os.path.join(run_dir, "evidence.jsonl")) as handle:
        records = [json.loads(line) for line in handle if line.strip()]
    problems = []
    if not records:
        problems.append("the run has no records")
    if any(r["environment"] != "server" for r in records):
        problems.append("a record is not of the server environment")
    failed = {(r["case"], r["step"]) for r in records if r["verdict"] == "fail"}
    revoking = {(r["case"], r["step"]) for r in records if r["action"]["action"] in REVOKING}
    others = [r for r in records if r["verdict"] not in ("pass", "blocked") and (r["case"], r["step"]) not in failed]
    errored = [f'{r["case"]} step {r["step"]}: {r["verdict"]} {r.get("reason")}' for r in others]
    problems += errored
    blocked_cases = {r["case"] for r in records if r["verdict"] == "blocked"}
    failed_cases = {case for case, _ in failed}
    if not blocked_cases <= failed_cases:
        problems.append(f"blocked without a failure before: {sorted(blocked_cases - failed_cases)}")
    sent = [d for r in records for d in (r.get("observed") or {}).get("server", {}).get("deliveries", [])]
    deliveries = [d for d in sent if d.get("origin") != "signingFault"]
    faults = [d for d in sent if d.get("origin") == "signingFault"]
    accepted = [f'{d["fault"]} {d["notificationUUID"]}' for d in faults if any(a["sendAttemptResult"] == "SUCCESS" for a in d["attempts"])]
    if expectation == "all-pass" and accepted:
        problems.append(f"{len(accepted)} notifications a correct server refuses were accepted, e.g. {accepted[0]}")
    if not deliveries:
        problems.append("no notification was delivered")
    unacknowledged = [d["notificationUUID"] for d in deliveries if not any(a["sendAttemptResult"] == "SUCCESS" for a in d["attempts"])]
    if unacknowledged:
        problems.append(f"{len(unacknowledged)} notifications never acknowledged, e.g. {unacknowledged[0]}")
    if expectation == "all-pass" and failed:
        problems.append(f"failed: {sorted(failed)}")
    if expectation == "revocations-fail" and failed != revoking:
        problems.append(f"failed {sorted(failed)}, expected exactly {sorted(revoking)}")
    if expectation == "some-revocations-fail" and (not failed or not failed <= revoking):
        problems.append(f"failed {sorted(failed)}, expected a non-empty subset of {sorted(revoking)}")
    steps = len(records)
    for problem in problems:
        print(f"error: {run_dir}: {problem}", file=sys.stderr)
    if not problems:
        refused = f", {len(faults)} signing faults refused" if faults else ""
        print(f"{run_dir}: {expectation} as expected ({steps} steps, {len(failed)} failed, {len(deliveries)} deliveries{refused})", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
