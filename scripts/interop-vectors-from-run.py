"""Builds interop vectors for scripts/interop-apple-library.sh from the signed data of a real run.

Usage: python3 interop-vectors-from-run.py RUN_DIR ROOT.der --bundle-id ID [--environment ENV] > VECTORS.json

Reads RUN_DIR/evidence.jsonl (written by `matrix run`) and lists every distinct transaction, renewal info and
notification JWS it holds as a vector that Apple's SignedDataVerifier must accept (expectedStatus OK) with
ROOT.der as the only root (`matrix pki export-root --out ROOT.der`), the given bundle id and environment.
Control vectors that Apple's verifier must reject are added for each kind, so that a verifier that accepts
everything cannot pass: one with a changed signature (VERIFICATION_FAILURE), and one checked with another
bundle id (INVALID_APP_IDENTIFIER; for renewal info, which has no bundle id, another environment:
INVALID_ENVIRONMENT).

Exits 0 when written, 1 when the run lacks one of the three kinds, 64 on bad usage or input.
"""

import argparse
import base64
import json
import sys

KINDS = ("transaction", "renewalInfo", "notification")


def tampered(jws):
    """The JWS with one base64url character of its signature changed (still well-formed)."""
    header, payload, signature = jws.split(".")
    middle = len(signature) // 2
    replacement = "A" if signature[middle] != "A" else "B"
    return ".".join([header, payload, signature[:middle] + replacement + signature[middle + 1:]])


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run_dir")
    parser.add_argument("root", help="the simulator root certificate, DER")
    parser.add_argument("--bundle-id", required=True)
    parser.add_argument("--environment", default="Sandbox")
    arguments = parser.parse_args()

    try:
        with open(arguments.root, "rb") as handle:
            root = base64.b64encode(handle.read()).decode("ascii")
        items = []
        seen = set()
        with open(f"{arguments.run_dir}/evidence.jsonl", encoding="utf-8") as handle:
            for number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                record = json.loads(line)
                for index, item in enumerate((record.get("observed") or {}).get("signedData") or []):
                    if item["kind"] in KINDS and item["jws"] not in seen:
                        seen.add(item["jws"])
                        name = f"{record['case']} step {record['step']} ({record['action']['action']}) {item['kind']} {index + 1}"
                        items.append((name, item["kind"], item["jws"]))
    except (OSError, ValueError, KeyError, TypeError) as error:
        print(f"error: cannot read the run's signed data: {error}", file=sys.stderr)
        return 64

    missing = [kind for kind in KINDS if not any(kind == item[1] for item in items)]
    if missing:
        print(f"error: {arguments.run_dir} holds no {', '.join(missing)} JWS; run a matrix that produces every kind",
              file=sys.stderr)
        return 1

    def vector(name, kind, jws, expected, bundle_id=arguments.bundle_id, environment=arguments.environment, app_apple_id=None):
        return {"name": name, "kind": kind, "jws": jws, "environment": environment, "bundleId": bundle_id,
                "appAppleId": app_apple_id, "expectedStatus": expected}

    vectors = [vector(name, kind, jws, "OK") for name, kind, jws in items]
    for kind in KINDS:
        name, _, jws = next(item for item in items if item[1] == kind)
        vectors.append(vector(f"control: {name} with a changed signature", kind, tampered(jws), "VERIFICATION_FAILURE"))
        if kind == "renewalInfo":
            vectors.append(vector(f"control: {name} under a Production verifier", kind, jws, "INVALID_ENVIRONMENT",
                                  environment="Production", app_apple_id=1))
        else:
            vectors.append(vector(f"control: {name} for another bundle id", kind, jws, "INVALID_APP_IDENTIFIER",
                                  bundle_id=arguments.bundle_id + ".other"))

    counts = ", ".join(f"{sum(1 for item in items if item[1] == kind)} {kind}" for kind in KINDS)
    print(f"{len(items)} JWS from the run ({counts}) and {len(vectors) - len(items)} control vectors", file=sys.stderr)
    json.dump({"description": f"Signed data of the run {arguments.run_dir} (StoreKit Matrix simulator PKI, not Apple).",
               "rootCertificates": [root], "vectors": vectors}, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
