"""Checks StoreKit Matrix JWS vectors against Apple's App Store Server Library for Python.

Usage: python interop-apple-library.py VECTORS.json

VECTORS.json (written by the SignedDataTests interop suite):
  {"rootCertificates": [base64 DER, ...],
   "vectors": [{"name", "kind": transaction|renewalInfo|notification|appTransaction, "jws",
                "environment", "bundleId", "appAppleId" (or null), "expectedStatus": "OK" or a
                VerificationStatus name}, ...]}

Each vector is verified with SignedDataVerifier(roots, enable_online_checks=False, environment, bundle_id,
app_apple_id) in the library's default (strict X.509) mode. Prints one line per vector; exits 0 when every
outcome equals expectedStatus, 1 otherwise, 64 on bad usage or input.
"""

import base64
import json
import sys

from appstoreserverlibrary.models.Environment import Environment
from appstoreserverlibrary.signed_data_verifier import SignedDataVerifier, VerificationException


def verify(vector, roots):
    verifier = SignedDataVerifier(
        roots,
        enable_online_checks=False,
        environment=Environment(vector["environment"]),
        bundle_id=vector["bundleId"],
        app_apple_id=vector.get("appAppleId"),
    )
    method = {
        "transaction": verifier.verify_and_decode_signed_transaction,
        "renewalInfo": verifier.verify_and_decode_renewal_info,
        "notification": verifier.verify_and_decode_notification,
        "appTransaction": verifier.verify_and_decode_app_transaction,
    }[vector["kind"]]
    try:
        method(vector["jws"])
        return "OK", ""
    except VerificationException as error:
        cause = error.__cause__
        return error.status.name, f" ({type(cause).__name__}: {cause})" if cause else ""


def main(argv):
    if len(argv) != 2:
        print("usage: interop-apple-library.py VECTORS.json", file=sys.stderr)
        return 64
    try:
        with open(argv[1], encoding="utf-8") as handle:
            document = json.load(handle)
        roots = [base64.b64decode(root, validate=True) for root in document["rootCertificates"]]
        vectors = document["vectors"]
    except (OSError, ValueError, KeyError, TypeError) as error:
        print(f"error: cannot read vectors from {argv[1]}: {error}", file=sys.stderr)
        return 64
    if not vectors:
        print(f"error: {argv[1]} lists no vectors", file=sys.stderr)
        return 64

    mismatches = 0
    for vector in vectors:
        try:
            outcome, detail = verify(vector, roots)
        except Exception as error:  # a crash in the library is a mismatch, not a stop
            outcome, detail = "EXCEPTION", f" ({type(error).__name__}: {error})"
        expected = vector["expectedStatus"]
        matched = outcome == expected
        mismatches += 0 if matched else 1
        mark = "ok  " if matched else "FAIL"
        suffix = "" if matched else f", expected {expected}{detail}"
        print(f"{mark} {vector['name']}: {outcome}{suffix}")
    print(f"{len(vectors) - mismatches} of {len(vectors)} vectors match Apple's library")
    return 0 if mismatches == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
