#!/usr/bin/env bash
# Type-checks the code that is only built on Apple platforms, on Linux, against stand-ins of Apple's frameworks
# (scripts/apple-standins: StoreKit, StoreKitTest, CryptoKit, Security, each declaration copying the signature Apple's
# documentation gives it). Nothing here is compiled for an Apple platform: a wrong call, argument label or type in
# these units fails this script, but Linux's compiler does not check iOS or macOS availability (that is
# scripts/check-availability.py) and nothing is linked or run.
#
# Units, each compiled the way it is on Apple platforms (canImport(StoreKit), canImport(CryptoKit) true):
#   1. the stand-ins themselves;
#   2. Signing, with its CryptoKit backend (Sources/Signing/Backends/CryptoKit) instead of libcrypto, and
#      SignedData, with its Security backend (Sources/SignedData/Backends/Security: certificates and chains);
#   3. XcodeHarness, with its StoreKit and SKTestSession code (Sources/XcodeHarness);
#   4. the example stores (examples/apps/CarefulStore, TutorialStore, and the app repository's
#      examples/app-repo/App/Sources/NotesStore) on Apple's StoreKit rather than the look-alike;
#   5. the example conformance examples/apps/StoreAppsHarness/StoreApps.swift, unchanged, against XcodeHarness and
#      Apple's StoreKit: its imports of AppHarness and SimulatedStoreKit resolve to two one-line modules that
#      re-export XcodeHarness and StoreKit, so the same conformance text is checked against both harnesses.
#
# The package modules these units import (HarnessCore, HarnessRunner, MatrixModel, ...) are the Linux build's
# (`swift build` first). Usage: scripts/check-apple-branches.sh
# Exit status: 0 every unit type-checks, 1 one does not (the compiler's diagnostics above), 69 no build to use.
set -euo pipefail
cd "$(dirname "$0")/.."

bin="$(swift build --show-bin-path)"
modules="$bin/Modules"
for needed in HarnessCore HarnessRunner MatrixEngine MatrixModel MatrixJSON; do
    if [[ ! -f "$modules/$needed.swiftmodule" ]]; then
        echo "error: $modules/$needed.swiftmodule is missing: run \`swift build\` first" >&2
        exit 69
    fi
done

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
standins="$work/standins"   # StoreKit, StoreKitTest, CryptoKit, Security
apple="$work/apple"         # the units above, as built on Apple platforms
deps="$work/deps"           # the Linux build's modules, without those an Apple build replaces
mkdir -p "$standins" "$apple" "$deps" "$work/shims"

# The modules a unit below builds or shadows are left out, so that nothing resolves to their Linux build (StoreKit
# there is the look-alike under StoreKit's name).
shadowed=" StoreKit XcodeHarness AppHarness SimulatedStoreKit CarefulStore TutorialStore StoreAppsHarness NotesStore Signing SignedData "
for module in "$modules"/*.swiftmodule; do
    name="$(basename "$module" .swiftmodule)"
    [[ "$shadowed" == *" $name "* ]] || ln -s "$module" "$deps/"
done

# The package's modules were built with SwiftPM's -package-name (its identity); units that declare or use `package`
# members need the same one.
package="$(grep -o -m1 -- '"-package-name","[^"]*"' .build/debug.yaml 2>/dev/null | cut -d'"' -f4 || true)"
[[ -n "$package" ]] || package="$(basename "$PWD" | tr 'A-Z-' 'a-z_')"

common=(-swift-version 6 -package-name "$package" -parse-as-library -module-cache-path "$work/cache"
        -Xcc "-fmodule-map-file=$PWD/Sources/COpenSSL/module.modulemap")
failed=0

# unit NAME [swiftc arguments...]: emits module NAME into $apple, reporting the unit's name on failure.
unit() {
    local name="$1"
    shift
    if swiftc "${common[@]}" -module-name "$name" -emit-module -emit-module-path "$apple/$name.swiftmodule" \
        -I "$apple" -I "$standins" -I "$deps" "$@"; then
        echo "ok: $name"
    else
        echo "error: $name does not type-check against the Apple stand-ins (diagnostics above)" >&2
        failed=1
    fi
}

echo "== the stand-ins"
for name in StoreKit StoreKitTest CryptoKit Security; do
    swiftc "${common[@]}" -module-name "$name" -emit-module -emit-module-path "$standins/$name.swiftmodule" \
        -I "$standins" "scripts/apple-standins/$name/$name.swift"
done

echo "== Signing with its CryptoKit backend"
mapfile -t signing < <(find Sources/Signing -name '*.swift' | sort)
unit Signing "${signing[@]}"

echo "== SignedData with its Security backend"
mapfile -t signed < <(find Sources/SignedData -name '*.swift' | sort)
unit SignedData "${signed[@]}"

echo "== XcodeHarness with StoreKit and StoreKitTest"
mapfile -t xcode < <(find Sources/XcodeHarness -name '*.swift' | sort)
unit XcodeHarness "${xcode[@]}"

echo "== the example stores on Apple's StoreKit"
unit CarefulStore examples/apps/CarefulStore/*.swift
unit TutorialStore examples/apps/TutorialStore/*.swift
unit NotesStore examples/app-repo/App/Sources/NotesStore/*.swift

echo "== the example conformance, unchanged, against XcodeHarness and Apple's StoreKit"
echo '@_exported import XcodeHarness' > "$work/shims/AppHarness.swift"
echo '@_exported import StoreKit' > "$work/shims/SimulatedStoreKit.swift"
unit AppHarness "$work/shims/AppHarness.swift"
unit SimulatedStoreKit "$work/shims/SimulatedStoreKit.swift"
unit StoreAppsHarness examples/apps/StoreAppsHarness/*.swift

exit "$failed"
