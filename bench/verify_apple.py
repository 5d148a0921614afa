"""Times Apple's App Store Server Library for Python verifying the same JWS file as `matrix verify --batch`.

Usage: python verify_apple.py JWS_FILE ROOT.der BUNDLE_ID

Verifies every line with SignedDataVerifier.verify_and_decode_signed_transaction: online checks off, strict
X.509 checks on (the library's default), environment Sandbox. Prints one JSON object: count, seconds (the loop
only, not the import or the file read) and perSecond. Exits 1 if any JWS fails to verify.
"""

import json
import sys
import time

from appstoreserverlibrary.models.Environment import Environment
from appstoreserverlibrary.signed_data_verifier import SignedDataVerifier


def main(argv):
    if len(argv) != 4:
        print(__doc__, file=sys.stderr)
        return 64
    with open(argv[1], encoding="ascii") as handle:
        tokens = [line.strip() for line in handle if line.strip() and not line.startswith("#")]
    with open(argv[2], "rb") as handle:
        root = handle.read()
    verifier = SignedDataVerifier([root], enable_online_checks=False, environment=Environment.SANDBOX, bundle_id=argv[3])
    started = time.perf_counter()
    for token in tokens:
        verifier.verify_and_decode_signed_transaction(token)
    seconds = time.perf_counter() - started
    print(json.dumps({"count": len(tokens), "seconds": round(seconds, 4), "perSecond": round(len(tokens) / seconds)}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
