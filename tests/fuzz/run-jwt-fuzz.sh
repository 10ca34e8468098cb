#!/bin/sh
# tests/fuzz/run-jwt-fuzz.sh SECONDS - run the token parser's fuzz target
# (tests/fuzz/jwt_verify_fuzz) for SECONDS (default 10) from seeds: a good
# token, alg none, other algorithms, wrong claim types.  Run it in a build
# directory configured with --enable-fuzzing (CC=clang) after
# "make tests/fuzz/jwt_verify_fuzz", or set top_builddir.  Prints TAP;
# exits 1 when the target crashes, leaks, hangs or runs out of memory.
secs=${1:-10}
b=${top_builddir:-.}
bin="$b/tests/fuzz/jwt_verify_fuzz"
work=$(mktemp -d "${TMPDIR:-/tmp}/jwt-fuzz.XXXXXX") || exit 1
mkdir -p "$work/corpus" "$work/artifacts"

# mode byte 0: a token as is; 1: "header\npayload", signed by the target
printf '\000eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ1c2VybmFtZSI6ImFsaWNlIiwiaXNzIjoiS3l0b3MgTkFwcHMgU2VydmVyIiwiZXhwIjoxNzAwMDAwNjAwfQ.s-2GDAjms9oEDIHrXAsFzSo7zy6DkmpGX4frd2o3V14' >"$work/corpus/pyjwt"
printf '\000eyJhbGciOiJub25lIn0.eyJ1c2VybmFtZSI6ImFsaWNlIn0.' >"$work/corpus/none"
printf '\001{"alg":"HS256","typ":"JWT"}\n{"username":"a","iss":"Kytos NApps Server","exp":1800000000}' >"$work/corpus/good"
printf '\001{"alg":"HS256"}\n{"username":"a","iss":"Kytos NApps Server","exp":"1800000000","nbf":[1]}' >"$work/corpus/types"
printf '\001{"alg":"RS256"}\n{"username":"a","iss":"x","iat":1.5e300}' >"$work/corpus/rs256"
printf '\001{"alg":"HS256"}\n{"tid":"x","iss":"Kytos NApps Server","exp":1699999999.9}' >"$work/corpus/expired"

if [ ! -x "$bin" ]; then
    echo "not ok 1 - jwt_verify_fuzz: $bin not built (configure --enable-fuzzing CC=clang, then make)"
    echo "1..1"
    exit 1
fi
if "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=12000 \
    -artifact_prefix="$work/artifacts/" "$work/corpus" >"$work/log" 2>&1; then
    runs=$(grep -o 'Done [0-9]* runs' "$work/log" | tail -1)
    echo "ok 1 - jwt_verify_fuzz: ${runs:-ran} in ${secs}s, no crash, leak or hang"
    echo "1..1"
    rm -rf "$work"
    exit 0
fi
echo "not ok 1 - jwt_verify_fuzz failed; log and reproducer in $work"
tail -40 "$work/log" | sed 's/^/# /'
echo "1..1"
exit 1
