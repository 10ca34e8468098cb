#!/bin/sh
# tests/openapi/cli.sh - kytos-openapi lint / validate, exit codes and
# output.  Prints TAP.
cli="${top_builddir:-.}/openapi/kytos-openapi"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kytos-openapi-cli.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
n=0
fail=0

ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); echo "not ok $n - $1"; fail=1; }
check() { # description, expected exit code, command...
    desc=$1 want=$2
    shift 2
    "$@" >"$tmp/out" 2>"$tmp/err"
    got=$?
    if [ "$got" -eq "$want" ]; then ok "$desc"; else
        not_ok "$desc (exit $got, expected $want)"
        sed 's/^/# /' "$tmp/out" "$tmp/err"
    fi
}
contains() { # description, file, fixed string
    if grep -qF -- "$3" "$2"; then ok "$1"; else
        not_ok "$1"
        echo "# expected: $3"
        sed 's/^/# got: /' "$2"
    fi
}

cat >"$tmp/spec.yml" <<'EOF'
openapi: 3.0.0
info: {title: t, version: '1'}
servers: [{url: /api/kytos/t}]
paths:
  /v1/evc/{id}:
    post:
      parameters:
        - {name: id, in: path, required: true, schema: {type: integer}}
        - {name: force, in: query, schema: {type: boolean}}
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [name]
              additionalProperties: false
              properties:
                name: {type: string}
                queue_id: {type: integer, maximum: 7}
      responses: {'200': {description: ok}}
EOF
printf '{"name": "x", "queue_id": 8, "some": 1}' >"$tmp/bad.json"
printf '{"name": "x"}' >"$tmp/good.json"
printf 'openapi: 3.0.0\ninfo: {title: t, version: "1"}\npaths:\n  /a:\n    get: {}\n' >"$tmp/broken.yml"
printf 'openapi: 3.0.0\ninfo: {title: t, version: "1"}\npaths: {}\ncomponents:\n  schemas:\n    A: {type: array, enum: [yes]}\n' >"$tmp/warn.yml"

check "lint: a clean spec exits 0" 0 "$cli" lint "$tmp/spec.yml"
contains "lint: summary line" "$tmp/err" "OpenAPI 3.0, 1 operation, 0 warnings"
check "lint: a spec that does not load exits 2" 2 "$cli" lint "$tmp/broken.yml"
contains "lint: the error names file, line, column, pointer" "$tmp/err" \
    "broken.yml:5:5: error: GET /a has no 'responses' (required in OpenAPI 3.0) [at /paths/~1a/get]"
check "lint: warnings exit 1" 1 "$cli" lint "$tmp/warn.yml"
contains "lint: YAML 1.1 boolean warning" "$tmp/err" "warn.yml:6:29: warning: plain scalar 'yes' is a boolean in YAML 1.1"
check "lint: a missing file exits 2" 2 "$cli" lint "$tmp/nope.yml"
check "validate: a good request exits 0" 0 "$cli" validate "$tmp/spec.yml" POST "/api/kytos/t/v1/evc/5?force=on" "$tmp/good.json"
contains "validate: typed params on success" "$tmp/out" '"params":{"id":5,"force":true}'
check "validate: a bad body exits 1" 1 "$cli" validate "$tmp/spec.yml" POST /api/kytos/t/v1/evc/5 "$tmp/bad.json"
contains "validate: status line" "$tmp/out" "400"
contains "validate: Kytos description" "$tmp/out" \
    '"description":"The request body contains invalid API data., Additional properties are not allowed ('"'"'some'"'"' was unexpected) for field ., 8 is greater than the maximum of 7 for field queue_id.","code":400'
check "validate: missing required body" 1 "$cli" validate "$tmp/spec.yml" POST /api/kytos/t/v1/evc/5
contains "validate: missing body message" "$tmp/out" '{"description":"Missing required request body","code":400'
check "validate: 415 for another content type" 1 "$cli" validate -t text/plain "$tmp/spec.yml" POST /api/kytos/t/v1/evc/5 "$tmp/good.json"
contains "validate: 415 message" "$tmp/out" '"description":"Expected Content-Type: application/json, got: text/plain","code":415'
check "validate: unknown path" 1 "$cli" validate "$tmp/spec.yml" GET /api/kytos/t/nope
contains "validate: 404" "$tmp/out" "Path not found for /api/kytos/t/nope"
check "validate: wrong method" 1 "$cli" validate "$tmp/spec.yml" GET /api/kytos/t/v1/evc/5
contains "validate: 405" "$tmp/out" "Operation GET not found for /api/kytos/t/v1/evc/5"
check "validate: a body on stdin" 0 sh -c "\"$cli\" validate \"$tmp/spec.yml\" POST /api/kytos/t/v1/evc/5 - <\"$tmp/good.json\""
check "validate: a spec that does not load exits 2" 2 "$cli" validate "$tmp/broken.yml" GET /a
check "usage error exits 2" 2 "$cli" frobnicate
check "--help exits 0" 0 "$cli" --help

data=${TEST_DATA_DIR:-$top_srcdir/tests/data}
check "validate: mef_eline EVC create" 1 "$cli" validate "$data/napps-openapi/mef_eline.openapi.yml" \
    POST /api/kytos/mef_eline/v2/evc/ "$tmp/bad.json"
contains "validate: mef_eline message" "$tmp/out" "'uni_a' is a required property for field ."
echo "1..$n"
exit $fail
