#!/bin/sh
# tests/fuzz/run-openapi-fuzz.sh SECONDS - run each libkytos-openapi fuzz
# target for SECONDS (default 10) from seed corpora built from the real
# specs and fixtures.  Run it in a build directory configured with
# --enable-fuzzing (CC=clang) after "make", or set top_builddir.  Prints
# TAP; exits 1 when a target crashes, leaks, hangs (-timeout) or runs out
# of memory, leaving the reproducer in the work directory it names.
secs=${1:-10}
b=${top_builddir:-.}
here=$(cd "$(dirname "$0")" && pwd)
shared=${TEST_DATA_DIR:-$here/../data}
work=$(mktemp -d "${TMPDIR:-/tmp}/openapi-fuzz.XXXXXX") || exit 1
n=0
fail=0

mkdir -p "$work/yaml" "$work/json" "$work/validate"

# --- seeds ------------------------------------------------------------
if [ -d "$shared/napps-openapi" ]; then
    cp "$shared"/napps-openapi/*.yml "$work/yaml/" 2>/dev/null
fi
printf 'openapi: 3.1.0\ninfo: {title: t, version: "1"}\npaths: {}\n' >"$work/yaml/min31.yml"
printf '{"openapi": "3.0.0", "info": {"title": "t", "version": "1"}, "paths": {"/a/{x}": {"get": {"parameters": [{"name": "x", "in": "path", "required": true, "schema": {"type": "integer"}}], "responses": {"200": {"description": "ok"}}}}}}' >"$work/yaml/min30.json"
printf 'a: &a [1, 2]\nb: *a\nc: {<<: {d: 1}, e: yes}\n' >"$work/yaml/anchors.yml"

if [ -d "$shared/json-schema-test-suite/draft4" ]; then
    for f in type.json ref.json uniqueItems.json optional/bignum.json; do
        cp "$shared/json-schema-test-suite/draft4/$f" "$work/json/$(echo "$f" | tr / _)" 2>/dev/null
    done
fi
[ -f "$shared/fixtures/mef_eline_evc_cases.json" ] &&
    cp "$shared/fixtures/mef_eline_evc_cases.json" "$work/json/"
printf '{"cookie": 18446744073709551615, "a": [1.5e-3, -0, "\\u00e9\\ud83d\\ude00", null, true]}' >"$work/json/numbers.json"
printf '"\\ud800"' >"$work/json/surrogate.json"

# validate: byte 0 selects spec/op/content type, then query, newline, body
printf '\002n=3&f=1.5&b=yes&a=1&a=2&c=x,y&o[k]=v&m=7\n{"name": "evc", "uni_a": {"interface_id": "00:00:00:00:00:00:00:01:1", "tag": {"tag_type": "vlan", "value": 100}}, "queue_id": null, "tags": [{"value": [[1, 10]]}]}' >"$work/validate/evc"
printf '\003\n{"flows": [{"cookie": 13474790939069419520, "priority": 10, "next": {"cookie": 1}}], "tuple": [1, null], "c": {"a": [1, 2]}, "dep": {"a": 1, "b": 2}, "cond": 5, "x-k": "v"}' >"$work/validate/flows"
printf '\006\n{"kind": "Cat", "claws": 4}' >"$work/validate/pet"
printf '\026\n2020-01-01T00:00:00Z' >"$work/validate/text"
if command -v python3 >/dev/null 2>&1 && [ -f "$shared/fixtures/mef_eline_evc_cases.json" ]; then
    python3 - "$shared/fixtures/mef_eline_evc_cases.json" "$work/validate" <<'PY'
import json, sys
for i, c in enumerate(json.load(open(sys.argv[1]))):
    open("%s/case%02d" % (sys.argv[2], i), "wb").write(b"\x02\n" + json.dumps(c["body"]).encode())
PY
fi

# --- run ----------------------------------------------------------------
for t in json yaml validate; do
    bin="$b/tests/fuzz/openapi_${t}_fuzz"
    n=$((n + 1))
    if [ ! -x "$bin" ]; then
        echo "not ok $n - openapi_${t}_fuzz: $bin not built (configure --enable-fuzzing CC=clang, then make)"
        fail=1
        continue
    fi
    mkdir -p "$work/artifacts-$t"
    if "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
        -artifact_prefix="$work/artifacts-$t/" "$work/$t" >"$work/$t.log" 2>&1; then
        runs=$(grep -o 'Done [0-9]* runs' "$work/$t.log" | tail -1)
        echo "ok $n - openapi_${t}_fuzz: ${runs:-ran} in ${secs}s, no crash, leak or hang"
    else
        echo "not ok $n - openapi_${t}_fuzz failed; log and reproducer in $work"
        tail -40 "$work/$t.log" | sed 's/^/# /'
        fail=1
    fi
done
echo "1..$n"
[ "$fail" -eq 0 ] && rm -rf "$work"
exit $fail
