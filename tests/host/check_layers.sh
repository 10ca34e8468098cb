#!/bin/sh
# tests/host/check_layers.sh - the lower layers do not reach up to the host
# object (TAP).  util/, events/, store/ and http/ are created by the host
# (host/core/host.c) and get what they need then; the host object is
# host/core/host.c, host/core/hostimpl.h's struct kh_host and the kh_host_*
# functions.  One test per file under host/{util,events,store,http}: it may
# not include core/hostimpl.h or core/host.h, call a kh_host_* function,
# name kh_host, or follow a ->host pointer.
# `sh tests/host/check_layers.sh -v` also prints each offending line.
src="${top_srcdir:-.}/host"
files=$(cd "$src" && ls util/*.[ch] events/*.[ch] store/*.[ch] http/*.[ch] auth/*.[ch] 2>/dev/null)
n=$(echo "$files" | wc -w)
[ "$n" -gt 0 ] || { echo "1..0 # SKIP no sources under $src"; exit 0; }
echo "1..$n"
i=0
total=0
for f in $files; do
    i=$((i + 1))
    # comments are not calls: drop /* ... */ lines and // tails first
    hits=$(sed -E -e 's#//.*##' -e '/^[[:space:]]*(\/\*|\*[[:space:]/]|\*$)/d' "$src/$f" |
        grep -nE '#[[:space:]]*include[[:space:]]*"core/(hostimpl|host)\.h"|\<kh_host_[a-z_]+[[:space:]]*\(|\<kh_host\>|->host\>')
    if [ -z "$hits" ]; then
        echo "ok $i - $f"
    else
        c=$(echo "$hits" | wc -l)
        total=$((total + c))
        echo "not ok $i - $f: $c upcall(s) to the host object"
        echo "$hits" | sed 's/^/#   /'
    fi
done
echo "# $total upcall(s) from host/{util,events,store,http} to the host object"
