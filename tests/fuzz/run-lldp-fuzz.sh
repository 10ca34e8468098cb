#!/bin/sh
# tests/fuzz/run-lldp-fuzz.sh SECONDS - run the LLDP frame fuzz target
# (tests/fuzz/lldp_frame_fuzz) for SECONDS (default 10) from a seed corpus:
# Kytos' frame (southbound.md 3.1), untagged, double-tagged, padded, a
# foreign (MAC-subtype) frame, truncated TLVs, and a frame as hex text.
# Run it in a build directory configured with --enable-fuzzing (CC=clang)
# after "make tests/fuzz/lldp_frame_fuzz", or set top_builddir.  Prints TAP;
# exits 1 when the target crashes, leaks, hangs or runs out of memory,
# leaving the reproducer in the work directory it names.
secs=${1:-10}
b=${top_builddir:-.}
bin="$b/tests/fuzz/lldp_frame_fuzz"
work=$(mktemp -d "${TMPDIR:-/tmp}/lldp-fuzz.XXXXXX") || exit 1
mkdir -p "$work/corpus" "$work/artifacts"

seed() { perl -e 'print pack("H*", $ARGV[0])' "$2" >"$work/corpus/$1"; }
kytos=0180c200000eee000000010281000ed788cc020907000000000000000104050700000002060200780000
seed kytos $kytos
seed untagged 0180c200000eee000000010288cc020907000000000000000104050700000002060200780000
seed qinq 0180c200000eee000000010288a8006481000ed788cc020907000000000000000104050700000002060200780000
seed padded ${kytos}000000000000000000000000000000000000
seed foreign_mac 0180c200000e00112233445588cc0207040011223344550403056531060200780000
seed truncated 0180c200000eee000000010281000ed788cc0209070000000000
seed huge_len 0180c200000eee000000010281000ed788cc03ff07
printf '%s' "$kytos" >"$work/corpus/hex"
printf '00:00:00:00:00:00:00:01' >"$work/corpus/dpid"

if [ ! -x "$bin" ]; then
    echo "not ok 1 - lldp_frame_fuzz: $bin not built (configure --enable-fuzzing CC=clang, then make)"
    echo "1..1"
    exit 1
fi
if "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=9216 \
    -artifact_prefix="$work/artifacts/" "$work/corpus" >"$work/log" 2>&1; then
    runs=$(grep -o 'Done [0-9]* runs' "$work/log" | tail -1)
    echo "ok 1 - lldp_frame_fuzz: ${runs:-ran} in ${secs}s, no crash, leak or hang"
    echo "1..1"
    rm -rf "$work"
    exit 0
fi
echo "not ok 1 - lldp_frame_fuzz failed; log and reproducer in $work"
tail -40 "$work/log" | sed 's/^/# /'
echo "1..1"
exit 1
