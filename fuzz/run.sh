#!/usr/bin/env bash
# Builds one libFuzzer harness with AddressSanitizer, seeds its corpus from the repository's fixtures, and fuzzes
# for SECONDS. See fuzz/README.md.
#
# usage: fuzz/run.sh TARGET SECONDS [libFuzzer options…]
#   TARGET: matrix | storekit | jws | driver | evidence | loopback
# Outputs (git-ignored): fuzz/.build/TARGET/ (modules, the fuzzer binary, fuzz.log), fuzz/corpus/TARGET/ (kept
# between runs), fuzz/artifacts/TARGET/ (crashing or slow inputs).
# Exit status: 0 no crash in the time given; libFuzzer's status (non-zero) when it found a crash, a timeout or
# a leak; 64 usage; 69 the toolchain cannot build fuzzers.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() { echo "usage: fuzz/run.sh matrix|storekit|jws|driver|evidence|loopback SECONDS [libFuzzer options…]" >&2; exit 64; }
[[ $# -ge 2 ]] || usage
target=$1
seconds=$2
shift 2
[[ "$seconds" =~ ^[0-9]+$ ]] || usage

swiftc="${SWIFTC:-swiftc}"
command -v "$swiftc" >/dev/null || { echo "error: $swiftc not found" >&2; exit 69; }
build="fuzz/.build/$target"
corpus="fuzz/corpus/$target"
artifacts="fuzz/artifacts/$target"
mkdir -p "$build" "$corpus" "$artifacts"
flags=(-O -g -swift-version 6 -parse-as-library -package-name StoreKitMatrix -sanitize=fuzzer,address)
openssl=(-I Sources/COpenSSL -Xcc -fmodule-map-file=Sources/COpenSSL/module.modulemap)

# A library module built from a source folder, instrumented like the harness.
module() {
    local name=$1 folder=$2
    shift 2
    find "$folder" -name '*.swift' | sort > "$build/$name.sources"
    "$swiftc" "${flags[@]}" "$@" -I "$build" -module-name "$name" -emit-library -static -emit-module \
        -emit-module-path "$build/$name.swiftmodule" -o "$build/lib$name.a" @"$build/$name.sources"
}

# Seeds: every file that fits, copied under its content's hash so that reruns add nothing twice.
seed() {
    local file
    for file in "$@"; do
        [[ -f "$file" ]] || continue
        cp "$file" "$corpus/seed-$(sha256sum "$file" | cut -c1-16)"
    done
}

echo "== building the $target fuzzer" >&2
# The linker warns about every sanitizer symbol it cannot export; those lines say nothing.
exec 3>&2
exec 2> >(grep -v "Cannot export local symbol" >&3)
case "$target" in
    matrix)
        module Threading Sources/Threading
        module MatrixJSON Sources/MatrixJSON
        module AppStoreModels Sources/AppStoreModels
        find Sources/MatrixModel -name '*.swift' | sort > "$build/sources"
        "$swiftc" "${flags[@]}" -I "$build" -module-name FuzzMatrix -o "$build/fuzzer" fuzz/matrix.swift @"$build/sources" \
            "$build/libAppStoreModels.a" "$build/libMatrixJSON.a" "$build/libThreading.a"
        seed matrices/*.json Tests/MatrixModelTests/Fixtures/*/*.json
        # The release matrix with its catalog inline instead of named.
        python3 - "$corpus/seed-inline-catalog.json" <<'PY'
import json, sys
matrix = json.load(open("matrices/release.json"))
catalog = json.load(open("matrices/Products.storekit"))
matrix["catalog"] = {key: catalog[key] for key in ("products", "nonRenewingSubscriptions", "subscriptionGroups") if key in catalog}
json.dump(matrix, open(sys.argv[1], "w"))
PY
        export FUZZ_CATALOG="$PWD/matrices/Products.storekit"
        ;;
    storekit)
        module Threading Sources/Threading
        module MatrixJSON Sources/MatrixJSON
        module AppStoreModels Sources/AppStoreModels
        find Sources/MatrixModel -name '*.swift' | sort > "$build/sources"
        "$swiftc" "${flags[@]}" -I "$build" -module-name FuzzStoreKit -o "$build/fuzzer" fuzz/storekit.swift @"$build/sources" \
            "$build/libAppStoreModels.a" "$build/libMatrixJSON.a" "$build/libThreading.a"
        seed matrices/*.storekit Tests/MatrixModelTests/Fixtures/storekit/*.storekit ../shared/fixtures/storekit/*.storekit
        ;;
    jws)
        module Threading Sources/Threading
        module MatrixJSON Sources/MatrixJSON
        module SignedData Sources/SignedData "${openssl[@]}"
        "$swiftc" "${flags[@]}" "${openssl[@]}" -I "$build" -module-name FuzzJWS -o "$build/fuzzer" fuzz/jws.swift \
            "$build/libSignedData.a" "$build/libMatrixJSON.a" "$build/libThreading.a" -lcrypto
        # Each seed is a kind selector byte followed by a JWS.
        for file in fuzz/seeds/jws/* Tests/SignedDataTests/Fixtures/mock_signed_data/* Tests/SignedDataTests/Fixtures/xcode/*; do
            for selector in 0 5 10 15; do
                { printf "\\x$(printf %02x "$selector")"; tr -d '\n' < "$file"; } > "$corpus/seed-$(basename "$file")-$selector"
            done
        done
        ;;
    driver)
        [[ -d Sources/DriverKit ]] || { echo "error: Sources/DriverKit is not in this checkout; the driver target needs it" >&2; exit 69; }
        module Threading Sources/Threading
        module MatrixJSON Sources/MatrixJSON
        module AppStoreModels Sources/AppStoreModels
        module MatrixModel Sources/MatrixModel
        module DriverKit Sources/DriverKit
        "$swiftc" "${flags[@]}" -I "$build" -module-name FuzzDriver -o "$build/fuzzer" fuzz/driver.swift \
            "$build/libDriverKit.a" "$build/libMatrixModel.a" "$build/libAppStoreModels.a" "$build/libMatrixJSON.a" "$build/libThreading.a"
        # Each seed is a chunk-size byte followed by lines.
        for file in fuzz/seeds/driver/*; do
            for selector in 0 7 64 127; do
                { printf "\\x$(printf %02x "$selector")"; cat "$file"; } > "$corpus/seed-$(basename "$file")-$selector"
            done
        done
        ;;
    evidence)
        module Threading Sources/Threading
        module MatrixJSON Sources/MatrixJSON
        module AppStoreModels Sources/AppStoreModels
        module MatrixModel Sources/MatrixModel
        module MatrixEngine Sources/MatrixEngine
        module FileIO Sources/FileIO
        module MatrixComparison Sources/MatrixComparison
        module Reporters Sources/Reporters
        module SignedData Sources/SignedData "${openssl[@]}"
        # The harness is compiled into one module with Sources/EvidenceStore, to read a tar stream from memory.
        find Sources/EvidenceStore -name '*.swift' | sort > "$build/sources"
        "$swiftc" "${flags[@]}" "${openssl[@]}" -I "$build" -module-name FuzzEvidence -o "$build/fuzzer" fuzz/evidence.swift @"$build/sources" \
            "$build/libReporters.a" "$build/libMatrixComparison.a" "$build/libFileIO.a" "$build/libSignedData.a" \
            "$build/libMatrixEngine.a" "$build/libMatrixModel.a" "$build/libAppStoreModels.a" "$build/libMatrixJSON.a" "$build/libThreading.a" -lcrypto
        # Seeds: a release run of the simulator, as a tar stream (selector 0) and as a run directory's files (1).
        binary=.build/debug/matrix
        if [[ -x "$binary" ]]; then
            runs="$build/runs"
            rm -rf "$runs"
            # The release matrix's first three cases keep the seeds small (about 100 KB), so each input is quick.
            python3 - "$build/small.json" <<'PY'
import json, os, sys
matrix = json.load(open("matrices/release.json"))
matrix["cases"] = matrix["cases"][:3]
matrix["catalog"] = os.path.abspath("matrices/Products.storekit")
json.dump(matrix, open(sys.argv[1], "w"))
PY
            "$binary" run "$build/small.json" --out "$runs" --quiet || true
            run=$(find "$runs" -name run.json -printf '%h\n' | head -1)
            if [[ -n "$run" ]]; then
                "$binary" archive "$run" --out "$build/seed.tar.gz" --force --quiet
                { printf '\x00'; gzip -dc "$build/seed.tar.gz"; } > "$corpus/seed-archive"
                {
                    printf '\x01'
                    first=1
                    for name in run.json evidence.jsonl junit.xml summary.md report.html; do
                        [[ $first == 1 ]] || printf '\n--next file--\n'
                        first=0
                        cat "$run/$name"
                    done
                } > "$corpus/seed-run-directory"
            fi
        else
            echo "warning: $binary is not built (swift build); the evidence corpus starts from nothing" >&2
        fi
        ;;
    loopback)
        module Threading Sources/Threading
        module MatrixJSON Sources/MatrixJSON
        module SignedData Sources/SignedData "${openssl[@]}"
        # The harness is compiled into one module with the loopback HTTP layer and the bearer-token check, to reach
        # their internal readers.
        { find Sources/LoopbackHTTP -name '*.swift'; echo Sources/LoopbackServerAPI/BearerTokenCheck.swift; } | sort > "$build/sources"
        "$swiftc" "${flags[@]}" "${openssl[@]}" -I "$build" -module-name FuzzLoopback -o "$build/fuzzer" fuzz/loopback.swift @"$build/sources" \
            "$build/libSignedData.a" "$build/libMatrixJSON.a" "$build/libThreading.a" -lcrypto
        # Each seed is a selector byte (bit 0: a response; bit 1: to HEAD) followed by a request or a response.
        for file in fuzz/seeds/loopback/*; do
            case "$(basename "$file")" in
                request-*) selectors="0 2" ;;
                *) selectors="1 3" ;;
            esac
            for selector in $selectors; do
                { printf "\\x$(printf %02x "$selector")"; cat "$file"; } > "$corpus/seed-$(basename "$file")-$selector"
            done
        done
        ;;
    *)
        usage
        ;;
esac

exec 2>&3
echo "== fuzzing $target for $seconds s ($(find "$corpus" -type f | wc -l) inputs in the corpus)" >&2
# -timeout: an input that takes more than 10 s is a hang; -rss_limit_mb: one that needs 2 GB is a leak.
"$build/fuzzer" "$corpus" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$artifacts/" "$@" 2>&1 | tee "$build/fuzz.log" | grep --line-buffered -E '^(#[0-9]+.*(INITED|DONE|pulse))|stat::|ERROR|SUMMARY|Test unit written|==[0-9]+==' >&2
exit "${PIPESTATUS[0]}"
