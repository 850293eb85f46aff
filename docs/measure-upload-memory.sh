#!/usr/bin/env bash
# Measures the server's resident memory growth while it receives a large document upload.
# Usage: docs/measure-upload-memory.sh [path/to/registry-server] [size in MiB, default 100]
# Starts a server on a fresh data folder with a 200 MiB upload limit, uploads a PDF of the given
# size with curl, and prints VmRSS before and after and the peak (VmHWM) from /proc.
set -euo pipefail
BIN="${1:-target/release/registry-server}"
MIB="${2:-100}"
WORK="$(mktemp -d)"
PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
trap 'kill "$PID" 2>/dev/null || true; rm -rf "$WORK"' EXIT

REGISTRY_DATA_DIR="$WORK/data" REGISTRY_BIND="127.0.0.1:$PORT" REGISTRY_UPLOAD_LIMIT_MIB=200 \
REGISTRY_ADMIN_EMAIL=admin@example.com REGISTRY_ADMIN_PASSWORD=measure-password \
REGISTRY_LOG=warn "$BIN" &
PID=$!
for _ in $(seq 100); do curl -fs "http://127.0.0.1:$PORT/healthz" >/dev/null && break; sleep 0.1; done
API="http://127.0.0.1:$PORT/api"
TOKEN="$(curl -fs "$API/login/" -H 'Content-Type: application/json' \
    -d '{"email":"admin@example.com","password":"measure-password"}' | python3 -c 'import sys,json; print(json.load(sys.stdin)["token"])')"
FACILITY="$(curl -fs "$API/facility/register/" -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
    -d '{"name":"Medição","companyName":"Medição Ltda","cnpj":"11222333000181","telephone":"(11) 3456-7890","department":"Medicina Nuclear","address":[{"street":"Rua A, 1","city":"São Paulo","state":"SP"}]}' \
    | python3 -c 'import sys,json; print(json.load(sys.stdin)["_id"])')"
{ printf '%%PDF-1.7\n'; head -c "$((MIB * 1024 * 1024 - 9))" /dev/urandom; } > "$WORK/big.pdf"

# Warm-up: one small upload, so allocator pools and connections are in place before measuring.
printf '%%PDF-1.7\nwarm' > "$WORK/small.pdf"
curl -fs -o /dev/null "$API/document/register/" -H "Authorization: Bearer $TOKEN" \
    -F name=warm -F "facility=$FACILITY" -F date=2026-11-01 -F validity=2027-11-01 -F "file=@$WORK/small.pdf"

kib() { awk -v k="$1" '$1 == k":" {print $2}' "/proc/$PID/status"; }
BEFORE_RSS="$(kib VmRSS)"; BEFORE_HWM="$(kib VmHWM)"
START=$(date +%s.%N)
curl -fs -o "$WORK/answer.json" "$API/document/register/" -H "Authorization: Bearer $TOKEN" \
    -F name=grande -F "facility=$FACILITY" -F date=2026-11-01 -F validity=2027-11-01 -F "file=@$WORK/big.pdf"
END=$(date +%s.%N)
AFTER_RSS="$(kib VmRSS)"; AFTER_HWM="$(kib VmHWM)"
python3 - "$WORK/answer.json" "$WORK/big.pdf" <<'PY'
import hashlib, json, sys
doc = json.load(open(sys.argv[1]))
sha = hashlib.sha256(open(sys.argv[2], "rb").read()).hexdigest()
assert doc["file"]["sha256"] == sha, "sha256 mismatch"
print(f"stored {doc['file']['size']} bytes, sha256 matches")
PY
echo "upload of $MIB MiB took $(echo "$END - $START" | bc) s"
echo "VmRSS before: $BEFORE_RSS KiB, after: $AFTER_RSS KiB, growth: $((AFTER_RSS - BEFORE_RSS)) KiB"
echo "VmHWM (peak) before: $BEFORE_HWM KiB, after: $AFTER_HWM KiB, peak growth: $((AFTER_HWM - BEFORE_RSS)) KiB over the pre-upload RSS"
