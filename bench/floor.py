#!/usr/bin/env python3
"""Measures the floor a run's evidence sets: the work no implementation of `matrix run` can avoid for the
evidence it wrote, timed in CPU seconds on this machine right after the run (so under the same load).

  sign    every signature in the evidence, counted once: each distinct JWS (a notification's nested
          signedTransactionInfo and signedRenewalInfo included, and a nested JWS that is also the step's own
          transaction counted once, since the simulator signs a payload once per step), made again with
          `matrix pki sign PAYLOAD --count N` (libcrypto ES256 with the three-certificate x5c header), N per kind
          of item, each kind with a payload of that kind's mean size from the evidence; the CPU time of a
          `--count 1` run (process start, loading the PKI) is taken off
  sha256  SHA-256 (hashlib, which is libcrypto) over every byte of every file in the run directory
  write   those bytes written to a file on the same file system: evidence.jsonl one write() per record (each step
          reaches the kernel when it ends), every other file in one write(), an fsync per file

Prints one JSON object: signatures (by kind), bytes, and the CPU seconds of each part and their sum.

usage: bench/floor.py MATRIX_BINARY RUN_DIR SCRATCH_DIR
"""
import base64
import json
import os
import re
import resource
import subprocess
import sys
import time

JWS = re.compile(rb'"jws":"(eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*)","kind":"([A-Za-z]+)"')
NESTED = re.compile(rb'"(signedTransactionInfo|signedRenewalInfo)":"(eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*)"')
NESTED_KIND = {b"signedTransactionInfo": "transaction", b"signedRenewalInfo": "renewalInfo"}


def decoded(part):
    return base64.urlsafe_b64decode(part + b"=" * (-len(part) % 4))


class Signatures:
    """Distinct signatures by kind, with the payload sizes seen and one payload of each size."""

    def __init__(self):
        self.seen = set()
        self.sizes = {}
        self.samples = {}

    def add(self, jws, kind):
        _, payload, signature = jws.split(b".")
        if signature in self.seen:
            return None
        self.seen.add(signature)
        body = decoded(payload)
        self.sizes.setdefault(kind, []).append(len(body))
        self.samples.setdefault(kind, {}).setdefault(len(body), body)
        return body

    def typical(self, kind):
        """The kind's payload whose size is nearest the mean: signing N of it hashes what the N items hash."""
        sizes = self.sizes[kind]
        mean = sum(sizes) / len(sizes)
        return self.samples[kind][min(self.samples[kind], key=lambda size: abs(size - mean))]


def signatures_of(evidence):
    found = Signatures()
    with open(evidence, "rb") as lines:
        for line in lines:
            for match in JWS.finditer(line):
                body = found.add(match.group(1), match.group(2).decode())
                if body is not None and match.group(2) == b"notification":
                    for nested in NESTED.finditer(body):
                        found.add(nested.group(2), NESTED_KIND[nested.group(1)])
    return found


def child_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def sign_seconds(matrix, payload_file, count):
    """CPU seconds of `matrix pki sign --count count`, less those of `--count 1`."""
    def run(n):
        before = child_cpu()
        subprocess.run([matrix, "pki", "sign", payload_file, "--count", str(n), "--out", "/dev/null"],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return child_cpu() - before
    return max(0.0, run(count) - run(1))


def files_of(run_dir):
    return sorted(os.path.join(run_dir, name) for name in os.listdir(run_dir)
                  if os.path.isfile(os.path.join(run_dir, name)))


def chunks(path):
    """The file's bytes as it was written: a record a write for the evidence, the whole file otherwise."""
    if os.path.basename(path) == "evidence.jsonl":
        with open(path, "rb") as lines:
            batch = []
            for line in lines:
                batch.append(line)
                if len(batch) == 1000:
                    yield batch
                    batch = []
            if batch:
                yield batch
    else:
        with open(path, "rb") as whole:
            yield [whole.read()]


def main(argv):
    if len(argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    matrix, run_dir, scratch = argv[1:]
    os.makedirs(scratch, exist_ok=True)
    found = signatures_of(os.path.join(run_dir, "evidence.jsonl"))
    sign = 0.0
    for kind in sorted(found.sizes):
        payload_file = os.path.join(scratch, f"payload-{kind}.json")
        with open(payload_file, "wb") as out:
            out.write(found.typical(kind))
        sign += sign_seconds(matrix, payload_file, len(found.sizes[kind]))

    import hashlib
    sha = write = 0.0
    total = 0
    target = os.path.join(scratch, "written")
    for path in files_of(run_dir):
        digest = hashlib.sha256()
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND, 0o644)
        for batch in chunks(path):
            started = time.process_time()
            for piece in batch:
                digest.update(piece)
            sha += time.process_time() - started
            started = time.process_time()
            for piece in batch:
                os.write(fd, piece)
                total += len(piece)
            write += time.process_time() - started
        started = time.process_time()
        os.fsync(fd)
        os.close(fd)
        write += time.process_time() - started
        os.unlink(target)
        digest.hexdigest()

    print(json.dumps({
        "signatures": {kind: len(sizes) for kind, sizes in sorted(found.sizes.items())},
        "signatureCount": sum(len(sizes) for sizes in found.sizes.values()),
        "bytes": total,
        "cpuSeconds": {"sign": round(sign, 3), "sha256": round(sha, 3), "write": round(write, 3),
                       "total": round(sign + sha + write, 3)},
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
