#!/bin/sh
# tests/store/crash.sh - an acknowledged write survives kill -9 (TAP).
# A writer acknowledges writes (prints each _id after the call returned) and
# is SIGKILLed while writing; reopening must find every acknowledged
# document intact.  Twice, the second time on the crashed store.
bin="${top_builddir:-.}/tests/store/crash_writer"
dir=$(mktemp -d "${TMPDIR:-/tmp}/kh-crash-XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
echo "1..4"
t=0
for round in 1 2; do
    : >"$dir/acked.$round"
    "$bin" write "$dir" 100000000 >>"$dir/acked.$round" 2>"$dir/err.$round" &
    pid=$!
    # let it acknowledge a few hundred writes (bounded: 20 s)
    i=0
    while [ "$(wc -l <"$dir/acked.$round")" -lt 300 ] && [ $i -lt 200 ] && kill -0 $pid 2>/dev/null; do
        sleep 0.1
        i=$((i + 1))
    done
    kill -9 $pid 2>/dev/null
    wait $pid 2>/dev/null
    n=$(wc -l <"$dir/acked.$round")
    t=$((t + 1))
    if [ "$n" -ge 300 ]; then
        echo "ok $t - round $round: $n writes acknowledged, then kill -9"
    else
        echo "not ok $t - round $round: only $n writes acknowledged"
        sed 's/^/# /' "$dir/err.$round"
    fi
    t=$((t + 1))
    head -n "$n" "$dir/acked.$round" >>"$dir/acked.all"   # whole lines only
    if out=$("$bin" check "$dir" "$dir/acked.all" 2>&1); then
        echo "ok $t - round $round: every acknowledged write is there after restart ($(echo "$out" | tail -1))"
    else
        echo "not ok $t - round $round: acknowledged writes lost"
        echo "$out" | head -20 | sed 's/^/# /'
    fi
done
