# bench/napps-bench.sh - sourced by run-bench.sh: Kytos-ng's load scenarios
# against a kytosd running the shipped NApps (simnet's 3-switch ring; the EVC
# creates on a ring of EVC_SWITCHES switches), each beside its ceiling measured
# in the same run.  KYTOS_URL=http://host:port[/prefix] runs the same
# client-side scenarios against another server (a Kytos-ng, say) instead:
# napps_bench_remote, without ceilings and server-side figures.
FIXED_SECS=${BENCH_FIXED_SECONDS:-60}
# EVC creates: a ring of EVC_SWITCHES switches with 2 host ports each, so
# (EVC_SWITCHES - 1) x 4094 distinct EVCs (405,306 for 100) fit before a
# (UNI, VLAN) pair or a link's S-VLANs run out; evc.lua reads the same names
EVC_SWITCHES=${EVC_SWITCHES:-100}
export EVC_SWITCHES EVC_PORT_A=1 EVC_PORT_Z=2
FLOW_BODY='{"force":true,"flows":[{"priority":10,"match":{"in_port":1,"dl_vlan":100},"actions":[{"action_type":"output","port":1}]}]}'

rss_kb() { { [ -n "$1" ] && awk '/VmHWM/ {print $2}' "/proc/$1/status" 2>/dev/null; } || echo 0; }

# openloop_run PID PORT PATH RATE SECS [METHOD BODYFILE [-u]]: key=value line + cpu
# (OL_SPIN=1: the client polls without sleeping, see openloop -s)
openloop_run() {
  pid=$1 port=$2 p=$3 rate=$4 secs=$5 m=${6:-GET} bf=${7:-} u=${8:-}
  t0=$(cpu_ticks "$pid")
  if [ -n "$bf" ]; then
    line=$(taskset -c "$LOAD_CPU" "$B/bench/openloop" ${OL_HOST:+-h "$OL_HOST"} -p "$port" -P "$p" -r "$rate" -d "$secs" -m "$m" -b "$bf" $u -c "${OL_CONNS:-512}" -t 5 -L 1 ${OL_SPIN:+-s})
  else
    line=$(taskset -c "$LOAD_CPU" "$B/bench/openloop" ${OL_HOST:+-h "$OL_HOST"} -p "$port" -P "$p" -r "$rate" -d "$secs" -c "${OL_CONNS:-512}" -t 5 -L 1 ${OL_SPIN:+-s})
  fi
  t1=$(cpu_ticks "$pid")
  echo "$line cpu_ticks=$((t1 - t0))"
}

kv() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }

row_openloop() { # row_openloop NAME LINE PID (no PID: no server-side columns)
  line=$2
  sent=$(kv "$line" sent); ok=$(kv "$line" ok)
  unsent=$(kv "$line" unsent); offered=$(kv "$line" offered)
  cpu=$(kv "$line" cpu_ticks)
  # success over what was offered: a request the client could not send
  # (behind, unsent) is not a success either
  awk -v n="$1" -v sent="$sent" -v offered="$offered" -v ok="$ok" -v rate="$(kv "$line" rate)" -v p50="$(kv "$line" p50_ms)" \
      -v p95="$(kv "$line" p95_ms)" -v p99="$(kv "$line" p99_ms)" -v mx="$(kv "$line" max_ms)" \
      -v unsent="$unsent" -v rej="$(kv "$line" rejected)" -v other="$(kv "$line" other)" -v err="$(kv "$line" errors)" \
      -v rst="$(kv "$line" resets)" -v to="$(kv "$line" timeouts)" \
      -v behind="$(kv "$line" client_behind)" -v lag="$(kv "$line" lag_p99_ms)" -v ccpu="$(kv "$line" client_cpu)" \
      -v cpu="$cpu" -v hz="$hz" -v rss="$(rss_kb "$3")" -v local="${3:+1}" 'BEGIN {
      printf "| %-44s | %8.0f | %7.4f | %7.3f | %7.3f | %7.3f | %8.3f | %8.3f | %7d | %5d | %4d/%-4d/%-4d | %8d | %7d | ",
        n, rate, (offered > 0 ? ok / offered : 0), p50, p95, p99, mx, lag, rej, other, rst, err - rst, to, behind, unsent
      if (local) printf "%6.1f | %8.3f | %6.2f |\n", rss / 1024, (sent > 0 ? cpu / hz / sent * 1000 : 0), ccpu
      else printf "%6s | %8s | %6.2f |\n", "-", "-", ccpu }'
}

openloop_header() { # [short]: without the legend
  [ -n "${1:-}" ] || openloop_legend
  printf "| %-44s | %8s | %7s | %7s | %7s | %7s | %8s | %8s | %7s | %5s | %14s | %8s | %7s | %6s | %8s | %6s |\n" scenario \
    "req/s" success "p50 ms" "p95 ms" "p99 ms" "max ms" "lag p99" "503/429" other "reset/err/t.o." "behind" "unsent" \
    "RSS MB" "CPU s/1k" "client CPU"
  echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
}

openloop_legend() {
  echo "(req/s = sent by the client; success = 2xx/offered (offered = due during the run, sent or not);"
  echo " latencies count from the scheduled time, and"
  echo " lag p99 is the part spent in the client before the request left (at most 1 s: -L 1);"
  echo " other = answers neither 2xx nor 503/429; reset/err/t.o. = connections reset or closed by the server"
  echo " with a request outstanding / other failures (refused connections, bad answers) / sent but"
  echo " unanswered 5 s after the scheduled time;"
  echo " behind = not sent, because still no free connection (512 at most, 1000 for overload) or no client CPU 1 s after"
  echo " its scheduled time: neither sent nor a t.o.; unsent = still queued when the client stopped;"
  echo " client CPU = the client's CPU time over the run's wall time: near 1.00, the one-core client,"
  echo " not the server, was the limit; below, a large behind means 512 requests awaited answers;"
  echo " the fixed-rate rows run the client with -s: it spins instead of sleeping, so its CPU is 1.00"
  echo " and its own wake-up lateness, a millisecond at the tail on a VM, stays out of the latency)"
}

# write_evc_lua PREFIX: $WORK/evc.lua, distinct EVC creates under PREFIX
write_evc_lua() {
  EVC_PREFIX=$1; export EVC_PREFIX
  cat >"$WORK/evc.lua" <<'LUA'
-- Distinct EVCs for POST /api/kytos/mef_eline/v2/evc/.  EVC k joins port
-- EVC_PORT_A of switch j+1 to port EVC_PORT_Z of switch j+2, j = k mod
-- (EVC_SWITCHES - 1), with VLAN 1 + floor(k / (EVC_SWITCHES - 1)) mod 4094 on
-- both UNIs.  Neighbours in a ring or a line: one link and one S-VLAN on it
-- per EVC, spread over every link, so (EVC_SWITCHES - 1) x 4094 creates are
-- distinct and deployable before a (UNI, VLAN) pair repeats (a 400).  Switch
-- n is dpid 00:00:00:00:00:00:HH:LL (n in hex), as in simnet and Mininet:
-- usable against any Kytos-ng whose topology has those switches and ports.
-- With wrk -tN set EVC_THREADS=N (thread t takes k = t, t + N, ...).
local n = tonumber(os.getenv("EVC_SWITCHES") or "100")
local pa = tonumber(os.getenv("EVC_PORT_A") or "1")
local pz = tonumber(os.getenv("EVC_PORT_Z") or "2")
local stride = tonumber(os.getenv("EVC_THREADS") or "1")
local prefix = os.getenv("EVC_PREFIX") or ""
local nthreads = 0
setup = function(thread)
  thread:set("id", nthreads)
  nthreads = nthreads + 1
end
local k, stamp
local function dpid(s)
  return string.format("00:00:00:00:00:00:%02x:%02x", math.floor(s / 256), s % 256)
end
request = function()
  if not k then
    k = id or 0
    stamp = os.time()
  end
  local j = k % (n - 1)
  local vlan = 1 + math.floor(k / (n - 1)) % 4094
  local body = string.format('{"name":"bench-evc-%d-%d","dynamic_backup_path":true,"enabled":true,' ..
    '"uni_a":{"interface_id":"%s:%d","tag":{"tag_type":"vlan","value":%d}},' ..
    '"uni_z":{"interface_id":"%s:%d","tag":{"tag_type":"vlan","value":%d}}}',
    stamp, k, dpid(j + 1), pa, vlan, dpid(j + 2), pz, vlan)
  k = k + stride
  return wrk.format("POST", prefix .. "/api/kytos/mef_eline/v2/evc/", {["Content-Type"] = "application/json"}, body)
end
LUA
}

wait_topology() { # wait_topology [LINKS]: until simnet's ring (3 links) is in topology (bounded)
  i=0
  until curl -sf "http://127.0.0.1:$KPORT/api/kytos/topology/v3/" -o "$WORK/topo.json" &&
        [ "$(python3 -c "import json;print(len(json.load(open('$WORK/topo.json'))['topology']['links']))")" -ge "${1:-3}" ]; do
    i=$((i + 1)); [ $i -lt 100 ] || { echo "topology never appeared"; return 1; }; sleep 0.1
  done
}

napps_bench() {
  echo "## Kytos-ng load scenarios (kytosd with simnet, topology, flow_manager, mef_eline)"
  mkdir -p "$WORK/napps"
  for n in simnet topology flow_manager mef_eline; do
    [ -f "$B/plugins/.libs/$n.so" ] || { echo "($n.so not built: skipped)"; return 0; }
    cp "$B/plugins/.libs/$n.so" "$WORK/napps/"
  done
  start_kytosd "$WORK/napps" || return 1
  wait_topology || return 1
  echo "GET topology/v3 body: $(wc -c <"$WORK/topo.json") bytes"
  printf '%s' "$FLOW_BODY" >"$WORK/flow.json"
  printf 'wrk.method = "POST"\nwrk.body = [[%s]]\nwrk.headers["Content-Type"] = "application/json"\n' "$FLOW_BODY" >"$WORK/flow.lua"
  write_evc_lua ""
  printf '[kytos/simnet]\nshape = "ring"\nswitches = %d\nhost_ports = 2\n' "$EVC_SWITCHES" >"$WORK/evc.conf"
  CPORT=$(free_port)
  taskset -c "$SRV_CPU" "$B/bench/ceiling" "$CPORT" 1 "$WORK/topo.json" & CPID=$!
  wait_port "$CPORT" || { echo "bench/ceiling did not start"; stop_pid "$CPID"; stop_pid "$KPID"; return 1; }

  echo
  echo "Max throughput (wrk -t1 -c64 -d${SECS}s, closed loop), median of $REPEAT:"
  for r in $(seq "$REPEAT"); do
    wrk_run "$CPID" "http://127.0.0.1:$CPORT/x" >>"$WORK/n_c_get"
    wrk_run "$KPID" "http://127.0.0.1:$KPORT/api/kytos/topology/v3/" >>"$WORK/n_k_get"
    wrk_run "$CPID" "http://127.0.0.1:$CPORT/x" "$WORK/flow.lua" >>"$WORK/n_c_post"
    wrk_run "$KPID" "http://127.0.0.1:$KPORT/api/kytos/flow_manager/v2/flows/00:00:00:00:00:00:00:01" "$WORK/flow.lua" >>"$WORK/n_k_post"
  done
  table_row "case" "req/s" "p50 ms" "p99 ms" "CPU us/req" "non-2xx" "sock err"
  table_row "---" "---" "---" "---" "---" "---" "---"
  for f in n_c_get n_k_get n_c_post n_k_post; do
    case $f in n_c_get) n="ceiling GET (same bytes)";; n_k_get) n="GET topology/v3";;
      n_c_post) n="ceiling POST -> 202";; n_k_post) n="POST flows/{dpid} (validated, stored)";;
 esac
    table_row "$n" "$(cut -d' ' -f1 "$WORK/$f" | median)" "$(cut -d' ' -f2 "$WORK/$f" | median)" \
      "$(cut -d' ' -f3 "$WORK/$f" | median)" "$(cut -d' ' -f4 "$WORK/$f" | median)" "$(cut -d' ' -f5 "$WORK/$f" | median)" \
      "$(cut -d' ' -f6 "$WORK/$f" | median)"
  done
  gmax=$(cut -d' ' -f1 "$WORK/n_k_get" | median); pmax=$(cut -d' ' -f1 "$WORK/n_k_post" | median)
  awk -v kg="$gmax" -v cg="$(cut -d' ' -f1 "$WORK/n_c_get" | median)" -v kp="$pmax" \
      -v cp="$(cut -d' ' -f1 "$WORK/n_c_post" | median)" \
      -v kgc="$(cut -d' ' -f4 "$WORK/n_k_get" | median)" -v cgc="$(cut -d' ' -f4 "$WORK/n_c_get" | median)" \
      -v kpc="$(cut -d' ' -f4 "$WORK/n_k_post" | median)" -v cpc="$(cut -d' ' -f4 "$WORK/n_c_post" | median)" 'BEGIN {
    printf "GET topology/v3: %.2f of the ceiling'"'"'s req/s, %.2fx its CPU per request\n", (cg ? kg / cg : 0), (cgc ? kgc / cgc : 0)
    printf "POST flows: %.2f of the ceiling'"'"'s req/s, %.2fx its CPU per request\n", (cp ? kp / cp : 0), (cpc ? kpc / cpc : 0) }'
  # every group below runs on a fresh kytosd, so no group pays for another's data
  stop_pid "$KPID"
  start_kytosd "$WORK/napps" -c "$WORK/evc.conf" || return 1; wait_topology "$EVC_SWITCHES" || return 1
  wrk_run "$KPID" "http://127.0.0.1:$KPORT/api/kytos/mef_eline/v2/evc/" "$WORK/evc.lua" >>"$WORK/n_k_evc"
  table_row "POST mef_eline/v2/evc/ ($EVC_SWITCHES-switch ring)" "$(cut -d' ' -f1 "$WORK/n_k_evc")" "$(cut -d' ' -f2 "$WORK/n_k_evc")" \
    "$(cut -d' ' -f3 "$WORK/n_k_evc")" "$(cut -d' ' -f4 "$WORK/n_k_evc")" "$(cut -d' ' -f5 "$WORK/n_k_evc")" \
    "$(cut -d' ' -f6 "$WORK/n_k_evc")"
  stop_pid "$KPID"; start_kytosd "$WORK/napps" || return 1; wait_topology || return 1

  echo
  echo "Open loop (bench/openloop, latency from the scheduled send time):"
  openloop_header
  L=$(OL_SPIN=1 openloop_run "$KPID" "$KPORT" /api/kytos/topology/v3/ 500 "$FIXED_SECS")
  row_openloop "GET topology/v3 at 500/s for ${FIXED_SECS}s" "$L" "$KPID"
  L=$(OL_SPIN=1 openloop_run "$KPID" "$KPORT" /api/kytos/flow_manager/v2/flows/00:00:00:00:00:00:00:01 100 "$FIXED_SECS" POST "$WORK/flow.json")
  row_openloop "POST flows at 100/s for ${FIXED_SECS}s" "$L" "$KPID"
  # the same rates against the ceiling: what this machine and client allow
  L=$(OL_SPIN=1 openloop_run "$CPID" "$CPORT" /x 500 "$FIXED_SECS")
  row_openloop "ceiling GET (same bytes) at 500/s" "$L" "$CPID"
  L=$(OL_SPIN=1 openloop_run "$CPID" "$CPORT" /x 100 "$FIXED_SECS" POST "$WORK/flow.json")
  row_openloop "ceiling POST -> 202 at 100/s" "$L" "$CPID"
  stop_pid "$CPID"
  stop_pid "$KPID"; start_kytosd "$WORK/napps" || return 1; wait_topology || return 1
  over=$(awk -v m="$gmax" 'BEGIN {printf "%d", m * 3}')
  # more client connections than api_concurrency_limit (512), so that the
  # server's own limit can answer 503 (under api_per_ip_connection_limit)
  L=$(OL_CONNS=1000 openloop_run "$KPID" "$KPORT" /api/kytos/topology/v3/ "$over" 10)
  row_openloop "overload: GET topology/v3 at 3x max ($over/s)" "$L" "$KPID"
  stop_pid "$KPID"; start_kytosd "$WORK/napps" || return 1; wait_topology || return 1
  over=$(awk -v m="$pmax" 'BEGIN {printf "%d", m * 3}')
  L=$(OL_CONNS=1000 openloop_run "$KPID" "$KPORT" /api/kytos/flow_manager/v2/flows/00:00:00:00:00:00:00:01 "$over" 10 POST "$WORK/flow.json")
  row_openloop "overload: POST flows at 3x max ($over/s)" "$L" "$KPID"
  echo "kytosd peak RSS: $(rss_kb "$KPID") kB"
  stop_pid "$KPID"
  echo
  # the default store_sync ("normal") makes a write survive kill -9, not a
  # power loss; "full" fsyncs each commit (a group of writes under load)
  echo "POST flows with store_sync = \"full\" (an fsync per commit, for power loss):"
  start_kytosd "$WORK/napps" --set 'store_sync="full"' || return 1; wait_topology || return 1
  for r in $(seq "$REPEAT"); do
    wrk_run "$KPID" "http://127.0.0.1:$KPORT/api/kytos/flow_manager/v2/flows/00:00:00:00:00:00:00:01" "$WORK/flow.lua" >>"$WORK/n_k_post_full"
  done
  table_row "case" "req/s" "p50 ms" "p99 ms" "CPU us/req" "non-2xx" "sock err"
  table_row "---" "---" "---" "---" "---" "---" "---"
  f=n_k_post_full
  table_row "POST flows/{dpid}, store_sync=full" "$(cut -d' ' -f1 "$WORK/$f" | median)" "$(cut -d' ' -f2 "$WORK/$f" | median)" \
    "$(cut -d' ' -f3 "$WORK/$f" | median)" "$(cut -d' ' -f4 "$WORK/$f" | median)" "$(cut -d' ' -f5 "$WORK/$f" | median)" \
    "$(cut -d' ' -f6 "$WORK/$f" | median)"
  openloop_header short
  L=$(OL_SPIN=1 openloop_run "$KPID" "$KPORT" /api/kytos/flow_manager/v2/flows/00:00:00:00:00:00:00:01 100 "$FIXED_SECS" POST "$WORK/flow.json")
  row_openloop "POST flows at 100/s, store_sync=full" "$L" "$KPID"
  stop_pid "$KPID"
  echo
}

# KYTOS_URL=http://host:port[/prefix]: the same scenarios against a server
# started elsewhere (a Kytos-ng with its topology, flow_manager and
# mef_eline, or a kytosd): no ceiling, no server CPU or memory.  The EVC
# creates need switches 1..EVC_SWITCHES in a ring or line with ports
# EVC_PORT_A and EVC_PORT_Z free (see evc.lua); the flow POSTs need switch
# 00:00:00:00:00:00:00:01.
napps_bench_remote() {
  url=${KYTOS_URL%/}
  case $url in http://*) ;; *) echo "KYTOS_URL must be http://host:port[/prefix]"; return 2;; esac
  hp=${url#http://}; prefix=""
  case $hp in */*) prefix="/${hp#*/}"; hp=${hp%%/*};; esac
  rhost=${hp%%:*}; rport=80
  case $hp in *:*) rport=${hp##*:};; esac
  echo "## Kytos-ng load scenarios against $url (client on core $LOAD_CPU; no ceiling, no server-side figures)"
  if ! curl -sf "$url/api/kytos/topology/v3/" -o "$WORK/topo.json"; then
    echo "GET $url/api/kytos/topology/v3/ failed"; return 1
  fi
  echo "GET topology/v3 body: $(wc -c <"$WORK/topo.json") bytes"
  printf '%s' "$FLOW_BODY" >"$WORK/flow.json"
  printf 'wrk.method = "POST"\nwrk.body = [[%s]]\nwrk.headers["Content-Type"] = "application/json"\n' "$FLOW_BODY" >"$WORK/flow.lua"
  write_evc_lua "$prefix"
  echo
  echo "Max throughput (wrk -t1 -c64 -d${SECS}s, closed loop), median of $REPEAT:"
  for r in $(seq "$REPEAT"); do
    wrk_run "" "$url/api/kytos/topology/v3/" >>"$WORK/r_get"
    wrk_run "" "$url/api/kytos/flow_manager/v2/flows/00:00:00:00:00:00:00:01" "$WORK/flow.lua" >>"$WORK/r_post"
  done
  wrk_run "" "$url/api/kytos/mef_eline/v2/evc/" "$WORK/evc.lua" >>"$WORK/r_evc"
  table_row "case" "req/s" "p50 ms" "p99 ms" "CPU us/req" "non-2xx" "sock err"
  table_row "---" "---" "---" "---" "---" "---" "---"
  for f in r_get r_post r_evc; do
    case $f in r_get) n="GET topology/v3";; r_post) n="POST flows/{dpid}";; r_evc) n="POST mef_eline/v2/evc/";; esac
    table_row "$n" "$(cut -d' ' -f1 "$WORK/$f" | median)" "$(cut -d' ' -f2 "$WORK/$f" | median)" \
      "$(cut -d' ' -f3 "$WORK/$f" | median)" "-" "$(cut -d' ' -f5 "$WORK/$f" | median)" "$(cut -d' ' -f6 "$WORK/$f" | median)"
  done
  gmax=$(cut -d' ' -f1 "$WORK/r_get" | median); pmax=$(cut -d' ' -f1 "$WORK/r_post" | median)
  echo
  echo "Open loop (bench/openloop, latency from the scheduled send time):"
  openloop_header
  export OL_HOST="$rhost"
  L=$(OL_SPIN=1 openloop_run "" "$rport" "$prefix/api/kytos/topology/v3/" 500 "$FIXED_SECS")
  row_openloop "GET topology/v3 at 500/s for ${FIXED_SECS}s" "$L" ""
  L=$(OL_SPIN=1 openloop_run "" "$rport" "$prefix/api/kytos/flow_manager/v2/flows/00:00:00:00:00:00:00:01" 100 "$FIXED_SECS" POST "$WORK/flow.json")
  row_openloop "POST flows at 100/s for ${FIXED_SECS}s" "$L" ""
  over=$(awk -v m="$gmax" 'BEGIN {printf "%d", m * 3}')
  [ "$over" -gt 0 ] && L=$(OL_CONNS=1000 openloop_run "" "$rport" "$prefix/api/kytos/topology/v3/" "$over" 10) &&
    row_openloop "overload: GET topology/v3 at 3x max ($over/s)" "$L" ""
  over=$(awk -v m="$pmax" 'BEGIN {printf "%d", m * 3}')
  [ "$over" -gt 0 ] && L=$(OL_CONNS=1000 openloop_run "" "$rport" "$prefix/api/kytos/flow_manager/v2/flows/00:00:00:00:00:00:00:01" "$over" 10 POST "$WORK/flow.json") &&
    row_openloop "overload: POST flows at 3x max ($over/s)" "$L" ""
  unset OL_HOST
  echo
}
