#!/bin/sh
# tests/host/config_reference.sh - docs/configuration.md is what
# `kytosd --print-config-reference` prints from host/util/conf_keys.c (TAP).
# After changing the table: build/host/kytosd --print-config-reference > docs/configuration.md
bin="${top_builddir:-.}/host/kytosd"
doc="${top_srcdir:-.}/docs/configuration.md"
echo "1..2"
out=$(mktemp "${TMPDIR:-/tmp}/kh-confref-XXXXXX") || exit 1
trap 'rm -f "$out"' EXIT
if "$bin" --print-config-reference >"$out" && diff -u "$doc" "$out" >"$out.diff" 2>&1; then
    echo "ok 1 - docs/configuration.md matches kytosd --print-config-reference"
else
    echo "not ok 1 - docs/configuration.md differs from kytosd --print-config-reference"
    sed 's/^/# /' "$out.diff"
fi
rm -f "$out.diff"
# a value out of its bounds stops kytosd with a message naming the key
msg=$("$bin" --set api_ipv6_client_prefix=200 --api-port 0 2>&1 >/dev/null)
rc=$?
case "$rc:$msg" in
1:*"api_ipv6_client_prefix: 200 is out of range 1..128"*)
    echo "ok 2 - kytosd refuses an out-of-range value, naming the key and its bounds" ;;
*)
    echo "not ok 2 - kytosd --set api_ipv6_client_prefix=200: exit $rc, '$msg'" ;;
esac
