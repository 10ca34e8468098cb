#!/bin/sh
# tests/fuzz/run-fuzz.sh BUILD_DIR [SECONDS]: configure a clang build with
# the libFuzzer targets in BUILD_DIR, build only them, and run each for
# SECONDS (default 20).  Exits non-zero on a crash, leak, hang or build
# failure; scripts/test-all counts it as one test.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$1
secs=${2:-20}
mkdir -p "$out"
cd "$out"
"$top/configure" --enable-fuzzing CC=clang >configure.log 2>&1 || { tail -20 configure.log; exit 1; }
make -j2 tests/fuzz/openapi_json_fuzz tests/fuzz/openapi_yaml_fuzz tests/fuzz/openapi_validate_fuzz \
  tests/fuzz/ofp_decode_fuzz tests/fuzz/lldp_frame_fuzz tests/fuzz/jwt_verify_fuzz >build.log 2>&1 || { grep -E 'error|undefined reference' build.log | head -30; exit 1; }
rc=0
top_builddir=$out sh "$top/tests/fuzz/run-openapi-fuzz.sh" "$secs" || rc=1
top_builddir=$out sh "$top/tests/fuzz/run-ofp-fuzz.sh" "$secs" || rc=1
top_builddir=$out sh "$top/tests/fuzz/run-lldp-fuzz.sh" "$secs" || rc=1
top_builddir=$out sh "$top/tests/fuzz/run-jwt-fuzz.sh" "$secs" || rc=1
exit $rc
