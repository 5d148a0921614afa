#!/usr/bin/env bash
# Mints the StoreKit Matrix simulator PKI: a P-384 root, a P-384 intermediate and a P-256 signing leaf that
# mirror the shape of Apple's App Store signing chain (Apple Root CA - G3 → WWDR → receipt signer), valid
# 2020-01-01 .. 9999-12-31 (so that any virtual date a matrix reaches is inside it), with SKI/AKI so that Apple's Python library accepts the chain in strict mode.
# None of it is Apple's: every name says so.
#
# Writes (run from anywhere; paths are relative to the repository root):
#   Resources/pki/simulator-root.pem           root certificate
#   Resources/pki/simulator-intermediate.pem   intermediate certificate (marker OID 1.2.840.113635.100.6.2.1)
#   Resources/pki/simulator-leaf.pem           leaf certificate (marker OID 1.2.840.113635.100.6.11.1)
#   Resources/pki/simulator-leaf.key           leaf private key, PKCS#8 PEM (a public test key)
#   Sources/Signing/JWS/SimulatorSigningChain+Embedded.swift   the four PEMs as Swift string constants
# The root and intermediate private keys are thrown away; re-running mints a whole new hierarchy.
#
# Usage: scripts/mint-simulator-pki.sh [--force]
#   Refuses to overwrite an existing PKI unless --force is given.
set -euo pipefail

root_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out_dir="$root_dir/Resources/pki"
swift_file="$root_dir/Sources/Signing/JWS/SimulatorSigningChain+Embedded.swift"
not_before="20200101000000Z"
not_after="99991231235959Z"

force=0
for argument in "$@"; do
    case "$argument" in
        --force) force=1 ;;
        -h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "error: unknown argument '$argument'" >&2; echo "usage: $0 [--force]" >&2; exit 64 ;;
    esac
done

if [[ -e "$out_dir/simulator-root.pem" && $force -eq 0 ]]; then
    echo "error: $out_dir/simulator-root.pem exists; the simulator PKI is minted once. Pass --force to replace it (every JWS signed with the old chain stops verifying)." >&2
    exit 1
fi
command -v openssl >/dev/null || { echo "error: openssl not found on PATH" >&2; exit 69; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/new" "$out_dir" "$(dirname "$swift_file")"
: > "$work/index.txt"

cat > "$work/ca.cnf" <<CNF
[ca]
default_ca = simulator

[simulator]
dir = $work
database = \$dir/index.txt
new_certs_dir = \$dir/new
rand_serial = yes
default_md = sha384
policy = policy_any
unique_subject = no
email_in_dn = no
copy_extensions = none
preserve = yes

[policy_any]
countryName = optional
organizationName = optional
organizationalUnitName = optional
commonName = supplied

[req]
distinguished_name = req_name
prompt = no

[req_name]
CN = placeholder

[v3_root]
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid:always
basicConstraints = critical, CA:TRUE
keyUsage = critical, keyCertSign, cRLSign

[v3_intermediate]
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid:always
basicConstraints = critical, CA:TRUE, pathlen:0
keyUsage = critical, keyCertSign, cRLSign
1.2.840.113635.100.6.2.1 = DER:05:00

[v3_leaf]
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid:always
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
1.2.840.113635.100.6.11.1 = DER:05:00
CNF

organization="StoreKit Matrix (test only, not Apple)"
unit="StoreKit Matrix Simulator PKI"

new_key() { # curve file
    openssl genpkey -algorithm EC -pkeyopt "ec_paramgen_curve:$1" -pkeyopt ec_param_enc:named_curve -out "$2" 2>/dev/null
}
new_request() { # key common-name csr
    openssl req -new -config "$work/ca.cnf" -key "$1" -subj "/C=US/O=$organization/OU=$unit/CN=$2" -out "$3"
}
issue() { # csr extensions out [ca options...]
    local csr="$1" extensions="$2" out="$3"
    shift 3
    openssl ca -batch -notext -config "$work/ca.cnf" -in "$csr" -out "$out" \
        -startdate "$not_before" -enddate "$not_after" \
        -extfile "$work/ca.cnf" -extensions "$extensions" "$@" 2>"$work/ca.log" \
        || { cat "$work/ca.log" >&2; exit 1; }
}

new_key P-384 "$work/root.key"
new_request "$work/root.key" "StoreKit Matrix Simulator Root CA (NOT Apple)" "$work/root.csr"
issue "$work/root.csr" v3_root "$work/root.pem" -selfsign -keyfile "$work/root.key"

new_key P-384 "$work/intermediate.key"
new_request "$work/intermediate.key" "StoreKit Matrix Simulator Intermediate CA (NOT Apple)" "$work/intermediate.csr"
issue "$work/intermediate.csr" v3_intermediate "$work/intermediate.pem" -cert "$work/root.pem" -keyfile "$work/root.key"

new_key P-256 "$work/leaf.key"
new_request "$work/leaf.key" "StoreKit Matrix Simulator Signing Leaf (NOT Apple)" "$work/leaf.csr"
issue "$work/leaf.csr" v3_leaf "$work/leaf.pem" -cert "$work/intermediate.pem" -keyfile "$work/intermediate.key"

# The chain must verify strictly (SKI/AKI present), as Apple's Python library requires by default.
openssl verify -x509_strict -attime "$(date -u -d 2026-01-01 +%s 2>/dev/null || echo 1767225600)" \
    -CAfile "$work/root.pem" -untrusted "$work/intermediate.pem" "$work/leaf.pem" >/dev/null

for name in root intermediate leaf; do
    openssl x509 -in "$work/$name.pem" -out "$out_dir/simulator-$name.pem"
done
openssl pkey -in "$work/leaf.key" -out "$out_dir/simulator-leaf.key"
chmod 644 "$out_dir"/simulator-*.pem "$out_dir/simulator-leaf.key" # public test material

{
    echo "// Generated by scripts/mint-simulator-pki.sh from Resources/pki/. Do not edit; re-run the script."
    echo "// Test-only PKI, NOT Apple's: the leaf key is public and signs nothing Apple trusts."
    echo ""
    echo "extension SimulatorSigningChain {"
    for entry in "rootPEM:simulator-root.pem" "intermediatePEM:simulator-intermediate.pem" "leafPEM:simulator-leaf.pem" "leafKeyPEM:simulator-leaf.key"; do
        echo "    package static let ${entry%%:*} = \"\"\""
        sed 's/^/    /' "$out_dir/${entry#*:}"
        echo "    \"\"\""
    done
    echo "}"
} > "$swift_file"

echo "Minted the simulator PKI into $out_dir and $swift_file:" >&2
for name in root intermediate leaf; do
    printf '  %-13s %s\n' "$name" "$(openssl x509 -in "$out_dir/simulator-$name.pem" -noout -subject -nameopt RFC2253)" >&2
done
