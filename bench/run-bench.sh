#!/bin/sh
# bench/run-bench.sh - every benchmark, side by side with its baseline in the
# same run (server pinned to core 0, load generator to core 1).  Medians of
# REPEAT runs.  Traffic goes to 127.0.0.1 only (unless KYTOS_URL says
# otherwise) and every run is bounded.
#
#   make bench                       # everything
#   BENCH_ONLY=ceiling make bench    # one part: ceiling | napps | southbound | cbench | micro | scale | auth
#                                    # | ovsscale (real OVS ring; not in "all")
#   OVS_SCALE_SWITCHES=20 OVS_SCALE_EVCS=1000   # the ovsscale part's sizes
#   SCALE_EVCS="2000 10000"          # the scale part's EVC counts
#   BENCH_SECONDS=10 REPEAT=3        # per-run duration and repetitions
#   BENCH_FIXED_SECONDS=60           # the open-loop runs at fixed rates
#   KYTOS_URL=http://host:port[/prefix] make bench
#                                    # Kytos-ng's scenarios against that
#                                    # server (a Kytos-ng, or a kytosd
#                                    # started elsewhere): client-side
#                                    # figures only, no ceiling
set -u
B=${BUILD_DIR:-$(pwd)}
SECS=${BENCH_SECONDS:-10}
REPEAT=${REPEAT:-3}
ONLY=${BENCH_ONLY:-all}
# the test data (specs, fixtures) in the source tree, as the tests find them
TEST_DATA_DIR=${TEST_DATA_DIR:-$(cd "$(dirname "$0")/.." && pwd)/tests/data}
export TEST_DATA_DIR
SRV_CPU=${SRV_CPU:-0}
LOAD_CPU=${LOAD_CPU:-1}
WORK=$(mktemp -d /tmp/kytos-bench-XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$WORK"' EXIT INT TERM

# a server's CPU ticks so far (0 without a local PID: KYTOS_URL)
cpu_ticks() { { [ -n "$1" ] && awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null; } || echo 0; }
hz=$(getconf CLK_TCK)
median() { sort -n | awk '{a[NR]=$1} END {if (NR==0) print 0; else if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }

wait_port() { # wait_port PORT: until it accepts (bounded)
  i=0
  while [ $i -lt 200 ]; do
    python3 -c "import socket,sys; s=socket.socket(); s.settimeout(0.2); sys.exit(s.connect_ex(('127.0.0.1',$1)))" && return 0
    sleep 0.05; i=$((i + 1))
  done
  return 1
}

# wrk_run PID URL [LUA]: prints "reqs_per_s p50_ms p99_ms cpu_us_per_req non2xx sock_errors"
# (sock_errors: wrk's connect, read, write and timeout errors: resets and
# timeouts at full load)
wrk_run() {
  pid=$1 url=$2 lua=${3:-}
  t0=$(cpu_ticks "$pid")
  if [ -n "$lua" ]; then
    out=$(taskset -c "$LOAD_CPU" wrk -t1 -c64 -d"${SECS}s" --latency -s "$lua" "$url" 2>&1)
  else
    out=$(taskset -c "$LOAD_CPU" wrk -t1 -c64 -d"${SECS}s" --latency "$url" 2>&1)
  fi
  t1=$(cpu_ticks "$pid")
  echo "$out" | awk -v t0="$t0" -v t1="$t1" -v hz="$hz" '
    function ms(v) { if (v ~ /us$/) return v / 1000; if (v ~ /ms$/) return v + 0; if (v ~ /s$/) return v * 1000; return v }
    /Requests\/sec/ {rps=$2}
    /requests in/ {n=$1}
    /Non-2xx/ {bad=$NF}
    /Socket errors:/ {gsub(",", ""); sock = $4 + $6 + $8 + $10}
    $1=="50%" {p50=ms($2)} $1=="99%" {p99=ms($2)}
    END { cpu = (n > 0) ? (t1 - t0) * 1e6 / hz / n : 0; printf "%.0f %.3f %.3f %.2f %d %d\n", rps, p50, p99, cpu, bad + 0, sock + 0 }'
}

start_kytosd() { # start_kytosd NAPPDIR [extra args...]: sets KPID KPORT
  nd=$1; shift
  KPORT=$(free_port)
  taskset -c "$SRV_CPU" "$B/host/kytosd" -f --listen 127.0.0.1 --api-port "$KPORT" --port 0 --napps "$nd" \
    --data-dir "$WORK/data-$KPORT" --set 'log_level="WARNING"' --set api_io_threads=1 "$@" \
    >"$WORK/kytosd-$KPORT.log" 2>&1 &
  KPID=$!
  wait_port "$KPORT" || { echo "kytosd did not start:"; cat "$WORK/kytosd-$KPORT.log"; return 1; }
}

stop_pid() { kill -TERM "$1" 2>/dev/null; wait "$1" 2>/dev/null; }

table_row() { printf "| %-34s | %9s | %8s | %8s | %10s | %7s | %8s |\n" "$1" "$2" "$3" "$4" "$5" "$6" "${7:-}"; }

ceiling_part() {
  echo "## kytosd vs a bare libmicrohttpd server (fixed 8 KB JSON / POST answered 202)"
  echo "server on core $SRV_CPU (1 I/O thread each), wrk -t1 -c64 -d${SECS}s on core $LOAD_CPU, median of $REPEAT"
  mkdir -p "$WORK/benchnapps"
  cp "$B/bench/.libs/benchnapp.so" "$WORK/benchnapps/"
  printf 'wrk.method = "POST"\nwrk.body = "{\\"force\\":true,\\"flows\\":[{\\"priority\\":10,\\"match\\":{\\"in_port\\":1,\\"dl_vlan\\":100},\\"actions\\":[{\\"action_type\\":\\"output\\",\\"port\\":1}]}]}"\nwrk.headers["Content-Type"] = "application/json"\n' >"$WORK/post.lua"
  printf 'wrk.method = "POST"\nwrk.body = [[{"name": "evpl-dynamic-1000", "dynamic_backup_path": true, "uni_a": {"interface_id": "00:00:00:00:00:00:00:01:1", "tag": {"tag_type": "vlan", "value": 1000}}, "uni_z": {"interface_id": "00:00:00:00:00:00:00:03:1", "tag": {"tag_type": "vlan", "value": 1000}}}]]\nwrk.headers["Content-Type"] = "application/json"\n' >"$WORK/evc.lua"
  for r in $(seq "$REPEAT"); do
    CPORT=$(free_port)
    taskset -c "$SRV_CPU" "$B/bench/ceiling" "$CPORT" 1 & CPID=$!
    wait_port "$CPORT" || { echo "bench/ceiling did not start"; stop_pid "$CPID"; return 1; }
    wrk_run "$CPID" "http://127.0.0.1:$CPORT/x" >>"$WORK/c_get"
    wrk_run "$CPID" "http://127.0.0.1:$CPORT/x" "$WORK/post.lua" >>"$WORK/c_post"
    stop_pid "$CPID"
    start_kytosd "$WORK/benchnapps" || return 1
    wrk_run "$KPID" "http://127.0.0.1:$KPORT/api/kytos/bench/fixed8k" >>"$WORK/k_get"
    wrk_run "$KPID" "http://127.0.0.1:$KPORT/api/kytos/bench/sink" "$WORK/post.lua" >>"$WORK/k_post"
    wrk_run "$KPID" "http://127.0.0.1:$KPORT/api/kytos/bench/sink_inline" "$WORK/post.lua" >>"$WORK/k_post_inline"
    wrk_run "$KPID" "http://127.0.0.1:$KPORT/api/kytos/bench/sink_stored" "$WORK/post.lua" >>"$WORK/k_post_stored"
    wrk_run "$KPID" "http://127.0.0.1:$KPORT/api/kytos/bench/evc_unchecked" "$WORK/evc.lua" >>"$WORK/k_evc_raw"
    wrk_run "$KPID" "http://127.0.0.1:$KPORT/api/kytos/bench/evc_checked" "$WORK/evc.lua" >>"$WORK/k_evc_val"
    stop_pid "$KPID"
  done
  table_row "case" "req/s" "p50 ms" "p99 ms" "CPU us/req" "non-2xx" "sock err"
  table_row "---" "---" "---" "---" "---" "---" "---"
  for f in c_get k_get c_post k_post_inline k_post_stored k_post k_evc_raw k_evc_val; do
    case $f in c_get) n="ceiling GET 8 KB";; k_get) n="kytosd GET 8 KB (inline route)";;
      c_post) n="ceiling POST -> 202";; k_post) n="kytosd POST -> 202 (pooled, parsed)";;
      k_post_inline) n="kytosd POST -> 202 (inline, parsed)";;
      k_post_stored) n="kytosd POST -> 202 (inline, stored)";;
      k_evc_raw) n="kytosd POST EVC body, parsed only";; k_evc_val) n="kytosd POST EVC body, OpenAPI-checked";; esac
    table_row "$n" "$(cut -d' ' -f1 "$WORK/$f" | median)" "$(cut -d' ' -f2 "$WORK/$f" | median)" \
      "$(cut -d' ' -f3 "$WORK/$f" | median)" "$(cut -d' ' -f4 "$WORK/$f" | median)" "$(cut -d' ' -f5 "$WORK/$f" | median)" \
      "$(cut -d' ' -f6 "$WORK/$f" | median)"
  done
  awk -v r="$(cut -d' ' -f1 "$WORK/k_evc_raw" | median)" -v v="$(cut -d' ' -f1 "$WORK/k_evc_val" | median)" \
      -v rc="$(cut -d' ' -f4 "$WORK/k_evc_raw" | median)" -v vc="$(cut -d' ' -f4 "$WORK/k_evc_val" | median)" 'BEGIN {
    printf "OpenAPI validation of the EVC create body: req/s %.0f -> %.0f (%.1f%% fewer), CPU per request +%.1f%%\n",
      r, v, (r > 0 ? (r - v) * 100 / r : 0), (rc > 0 ? (vc - rc) * 100 / rc : 0) }'
  for kind in get post post_inline post_stored; do
    kr=$(cut -d' ' -f1 "$WORK/k_$kind" | median); cr=$(cut -d' ' -f1 "$WORK/c_${kind%%_*}" | median)
    kc=$(cut -d' ' -f4 "$WORK/k_$kind" | median); cc=$(cut -d' ' -f4 "$WORK/c_${kind%%_*}" | median)
    awk -v kr="$kr" -v cr="$cr" -v kc="$kc" -v cc="$cc" -v k="$kind" 'BEGIN {
      printf "%s: kytosd/ceiling req/s ratio %.2f, CPU per request ratio %.2f\n", toupper(k),
        (cr > 0 ? kr / cr : 0), (cc > 0 ? kc / cc : 0) }'
  done
  echo
}

micro_part() {
  # each program with the arguments its closing note quotes
  for spec in "bench/openapi_bench" "bench/store_bench -t 4 -n 3000" "bench/event_bench" \
              "bench/pathfinder_bench 200"; do
    prog=${spec%% *}
    args=${spec#"$prog"}
    if [ -x "$B/$prog" ]; then
      echo "## $spec"
      # shellcheck disable=SC2086
      (cd "$B" && $prog $args) || echo "($prog failed)"
      echo
    fi
  done
}

# scale: the shipped NApps on simnet's 20-switch ring with SCALE_EVCS EVCs
# (bench/scale-bench.py prints one key=value line per phase)
scale_part() {
  echo "## at scale: simnet ring of 20, 2 host ports each, EVPL EVCs through REST (bench/scale-bench.py)"
  for n in ${SCALE_EVCS:-2000 10000}; do
    echo "### $n EVCs"
    SRV_CPU=$SRV_CPU /usr/bin/python3 "$(dirname "$0")/scale-bench.py" "$B" "$n" || echo "(scale run of $n EVCs failed)"
  done
  echo
}

napps_part() {
  if [ -x "$B/bench/napps-bench.sh" ] || [ -f "$(dirname "$0")/napps-bench.sh" ]; then
    . "$(dirname "$0")/napps-bench.sh"
    napps_bench
  fi
}

if [ -n "${KYTOS_URL:-}" ]; then
  # another server: only the client-side scenarios make sense
  . "$(dirname "$0")/napps-bench.sh"
  napps_bench_remote
  exit $?
fi

# The run's tables go to the terminal and to a new file under bench/results/
# (BENCH_RESULTS_DIR), named by date and commit (bench/results/README.md).
top=$(cd "$(dirname "$0")/.." && pwd)
results=${BENCH_RESULTS_DIR:-$top/bench/results}
commit=$(git -C "$top" rev-parse --short=7 HEAD 2>/dev/null || echo unknown)
dirty=""
[ "$commit" = unknown ] || git -C "$top" diff --quiet HEAD -- 2>/dev/null || dirty=" (with uncommitted changes)"
day=$(date -u +%Y-%m-%d)
mkdir -p "$results"
out="$results/$day-$commit.md" i=2
while [ -e "$out" ]; do out="$results/$day-$commit-$i.md"; i=$((i + 1)); done

# kytosd + of_core against real Open vSwitch switches (needs root and OVS;
# it prints why it skipped otherwise)
southbound_part() {
  SRV_CPU=$SRV_CPU LOAD_CPU=$LOAD_CPU REPEAT=$REPEAT BUILD_DIR=$B \
    python3 "$(dirname "$0")/southbound_bench.py" || echo "(southbound_bench.py failed)"
}

# kytosd with the EVC NApps over a ring of real Open vSwitch switches: EVCs
# created, a link failure, a restart (needs root and OVS; it prints why it
# skipped otherwise).  Sizes: OVS_SCALE_SWITCHES, OVS_SCALE_EVCS (see the script).
ovsscale_part() {
  SRV_CPU=$SRV_CPU LOAD_CPU=$LOAD_CPU BUILD_DIR=$B \
    /usr/bin/python3 "$(dirname "$0")/ovs-scale-bench.py" || echo "(ovs-scale-bench.py failed)"
}

# The cbench part: bench/cbench (16 emulated OpenFlow 1.3 switches, 1 s
# loops, the first a warm-up left out) against kytosd with only of_core and
# of_l2ls, and against ovs-testcontroller (Open vSwitch's C learning
# controller) in the same run; the controller on core SRV_CPU, cbench on
# LOAD_CPU.  Throughput mode (full send buffers) and latency mode (one
# PACKET_IN outstanding per switch).  CBENCH_LOOPS (11), CBENCH_MACS (1000).
cbench_run() { # cbench_run PORT MODEFLAG PID: prints "avg fm po pi p50 p99 cpu_us_per_response"
  t0=$(cpu_ticks "$3")
  out=$(taskset -c "$LOAD_CPU" "$B/bench/cbench" -p "$1" -s 16 -l "${CBENCH_LOOPS:-11}" -m 1000 -w 1 \
        -M "${CBENCH_MACS:-1000}" $2 2>&1)
  t1=$(cpu_ticks "$3")
  echo "$out" >>"$WORK/cbench.log"
  echo "$out" | awk -v t0="$t0" -v t1="$t1" -v hz="$hz" '/^RESULT:/ {
      split($0, a, "= "); split(a[2], r, "/"); avg = r[3]
      match($0, /flow_mods\/s [0-9]+/); fm = substr($0, RSTART + 12, RLENGTH - 12)
      match($0, /packet_outs\/s [0-9]+/); po = substr($0, RSTART + 14, RLENGTH - 14)
      match($0, /packet_ins\/s [0-9]+/); pi = substr($0, RSTART + 13, RLENGTH - 13)
      p50 = "-"; p99 = "-"
      if (match($0, /max us = [0-9.]+\/[0-9.]+/)) { split(substr($0, RSTART + 9, RLENGTH - 9), l, "/"); p50 = l[1]; p99 = l[2] }
      n = 0; if (match($0, /all loops [0-9]+/)) n = substr($0, RSTART + 10, RLENGTH - 10)
      cpu = (n > 0) ? sprintf("%.2f", (t1 - t0) * 1e6 / hz / n) : "-"
      print avg, fm, po, pi, p50, p99, cpu; found = 1 }
    END { if (!found) print "0 0 0 0 - - -" }'
}

cbench_part() {
  echo "## cbench-style: 16 OpenFlow 1.3 switches, packet-ins answered by a learning switch"
  if [ ! -x "$B/bench/cbench" ] || [ ! -f "$B/plugins/.libs/of_l2ls.so" ]; then
    echo "SKIP: bench/cbench or plugins/.libs/of_l2ls.so not built"; return 0
  fi
  if ! command -v ovs-testcontroller >/dev/null; then
    echo "SKIP: ovs-testcontroller not installed (Debian openvswitch-testcontroller)"; return 0
  fi
  echo "controller on core $SRV_CPU, bench/cbench on core $LOAD_CPU, ${CBENCH_LOOPS:-11} loops of 1 s (1 warm-up), ${CBENCH_MACS:-1000} MACs per switch, median of $REPEAT runs"
  echo "(responses = FLOW_MODs + PACKET_OUTs; latency: PACKET_IN to its PACKET_OUT, one outstanding per switch;"
  echo " CPU: the controller's utime+stime over the run per response: what a loaded machine cannot skew)"
  mkdir -p "$WORK/l2ls-napps"
  cp "$B/plugins/.libs/of_core.so" "$B/plugins/.libs/of_l2ls.so" "$WORK/l2ls-napps/"
  printf "| %-34s | %-10s | %12s | %11s | %13s | %12s | %8s | %8s | %9s |\n" controller mode responses/s flow_mods/s packet_outs/s packet_ins/s "p50 us" "p99 us" "CPU us/r"
  printf "|%s|%s|%s|%s|%s|%s|%s|%s|%s|\n" ------------------------------------ ------------ -------------- ------------- --------------- -------------- ---------- ---------- -----------
  for peer in kytosd ovs-testcontroller; do
    for mode in throughput latency; do
      flag=""; [ "$mode" = throughput ] && flag="-t"
      : >"$WORK/cb-runs"
      for r in $(seq "$REPEAT"); do
        if [ "$peer" = kytosd ]; then
          start_kytosd "$WORK/l2ls-napps" --set 'protocol_name="openflow"' || continue
          OFP=$(python3 -c "import json,urllib.request; print(json.load(urllib.request.urlopen('http://127.0.0.1:$KPORT/api/kytos/core/status/'))['southbound']['port'])")
          CPID=$KPID
        else
          OFP=$(free_port)
          taskset -c "$SRV_CPU" ovs-testcontroller -O OpenFlow13 "ptcp:$OFP:127.0.0.1" --no-chdir \
            --unixctl="$WORK/tc.ctl" -vconsole:off -vsyslog:off >"$WORK/tc.log" 2>&1 &
          CPID=$!
          wait_port "$OFP" ||
            { echo "ovs-testcontroller did not start:"; cat "$WORK/tc.log"; stop_pid "$CPID"; continue; }
        fi
        cbench_run "$OFP" "$flag" "$CPID" >>"$WORK/cb-runs"
        stop_pid "$CPID"
      done
      m() { awk -v c="$1" '{print $c}' "$WORK/cb-runs" | median; }
      printf "| %-34s | %-10s | %12s | %11s | %13s | %12s | %8s | %8s | %9s |\n" \
        "$([ "$peer" = kytosd ] && echo "kytosd (of_core + of_l2ls)" || echo "ovs-testcontroller (C peer)")" \
        "$mode" "$(m 1)" "$(m 2)" "$(m 3)" "$(m 4)" \
        "$([ "$mode" = latency ] && m 5 || echo -)" "$([ "$mode" = latency ] && m 6 || echo -)" "$(m 7)"
    done
  done
  echo
  echo "cbench's own lines:"
  grep '^RESULT' "$WORK/cbench.log"
  echo
}

# Bearer tokens and HTTPS against the same without (bench/auth-bench.sh)
auth_part() {
  . "$(dirname "$0")/auth-bench.sh"
  auth_bench
}

run_parts() {
  case $ONLY in
    all) ceiling_part; napps_part; southbound_part; cbench_part; auth_part; micro_part; scale_part ;;
    cbench) cbench_part ;;
    auth) auth_part ;;
    scale) scale_part ;;
    ceiling) ceiling_part ;;
    napps) napps_part ;;
    southbound) southbound_part ;;
    ovsscale) ovsscale_part ;;
    micro) micro_part ;;
  esac
}

{
  echo "# Benchmark run $day, $commit"
  echo
  echo "- Date: $(date -u '+%Y-%m-%d %H:%M') UTC"
  echo "- Commit: $commit$dirty"
  echo "- Machine: $(uname -srm), $(nproc) CPUs ($(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo 2>/dev/null))"
  echo "- Command: \`BENCH_ONLY=$ONLY BENCH_SECONDS=$SECS REPEAT=$REPEAT BENCH_FIXED_SECONDS=${BENCH_FIXED_SECONDS:-60} make bench\`"
  echo "- kytosd: $(grep -q '^JEMALLOC_LIBS = -ljemalloc' "$B/Makefile" 2>/dev/null && echo "linked with jemalloc" || echo "glibc malloc"); server on core $SRV_CPU, load generator on core $LOAD_CPU"
  echo
  echo '```'
  run_parts
  echo '```'
} | tee "$out"
echo "bench: the tables are in $out"
