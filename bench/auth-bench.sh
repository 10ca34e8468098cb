# bench/auth-bench.sh - sourced by run-bench.sh (BENCH_ONLY=auth): what auth
# and HTTPS cost a request.  kytosd with simnet and topology, GET
# topology/v3 with wrk (keep-alive, -c64):
#   - without auth, against api_auth_all = true with a Bearer token (a
#     verified token is cached: the check should cost under 5% of the CPU
#     per request);
#   - over HTTP, against the same over HTTPS (api_tls_cert/key, a
#     certificate made here with openssl).
# The runs alternate, REPEAT times; medians.

auth_start() { # auth_start NAME DATADIR [extra args...]: sets KPID KPORT; NAME for the log
  name=$1 dd=$2; shift 2
  KPORT=$(free_port)
  taskset -c "$SRV_CPU" "$B/host/kytosd" -f --listen 127.0.0.1 --api-port "$KPORT" --port 0 \
    --napps "$WORK/auth-napps" --data-dir "$dd" --set 'log_level="WARNING"' --set api_io_threads=1 \
    --set 'api_queue_target_ms=0' "$@" >"$WORK/kytosd-auth-$name.log" 2>&1 &
  KPID=$!
  wait_port "$KPORT" || { echo "kytosd ($name) did not start:"; cat "$WORK/kytosd-auth-$name.log"; return 1; }
}

auth_wait_topology() { # auth_wait_topology SCHEME [CURL ARGS]: until simnet's ring is in topology
  scheme=$1; shift
  i=0
  until curl -sf "$@" "$scheme://127.0.0.1:$KPORT/api/kytos/topology/v3/" -o "$WORK/auth-topo.json" &&
        [ "$(python3 -c "import json;print(len(json.load(open('$WORK/auth-topo.json'))['topology']['links']))")" -ge 3 ]; do
    i=$((i + 1)); [ $i -lt 100 ] || { echo "topology never appeared ($scheme)"; return 1; }; sleep 0.1
  done
}

# Whatever way auth_bench_run returns (an early return 1 included), the
# kytosd it started last is stopped: run-bench.sh goes on with the next
# benchmark, which must not share its cores with it.  (/bin/sh: no RETURN
# trap, so a wrapper.)
auth_bench() {
  KPID=
  auth_bench_run
  rc=$?
  [ -z "$KPID" ] || stop_pid "$KPID"
  return $rc
}

auth_bench_run() {
  echo "## auth and HTTPS: GET topology/v3 (simnet ring of 3, topology), keep-alive"
  echo "server on core $SRV_CPU (1 I/O thread), wrk -t1 -c64 -d${SECS}s on core $LOAD_CPU, median of $REPEAT"
  mkdir -p "$WORK/auth-napps"
  for n in simnet topology; do
    [ -f "$B/plugins/.libs/$n.so" ] || { echo "($n.so not built: skipped)"; return 0; }
    cp "$B/plugins/.libs/$n.so" "$WORK/auth-napps/"
  done
  command -v openssl >/dev/null || { echo "(openssl not installed: skipped)"; return 0; }

  # the first user, in a store no kytosd runs on yet (kytosd -C)
  pw=Bench3Passw0rd
  printf 'bench\nbench@example.org\n%s\n%s\n' "$pw" "$pw" |
    "$B/host/kytosd" -C --napps "$WORK/auth-napps" --data-dir "$WORK/auth-data" \
      --set 'log_level="WARNING"' >"$WORK/auth-create.log" 2>&1 ||
    { echo "kytosd -C failed:"; cat "$WORK/auth-create.log"; return 1; }
  # a test certificate for HTTPS
  openssl req -x509 -newkey rsa:2048 -nodes -keyout "$WORK/auth-tls.key" -out "$WORK/auth-tls.pem" \
    -days 2 -subj "/CN=127.0.0.1" >/dev/null 2>&1 || { echo "openssl failed"; return 1; }

  : >"$WORK/a_plain"; : >"$WORK/a_token"; : >"$WORK/a_http"; : >"$WORK/a_https"
  for r in $(seq "$REPEAT"); do
    # no auth: the baseline of both comparisons (HTTP)
    auth_start plain "$WORK/auth-data-plain-$r" || return 1
    auth_wait_topology http || return 1
    wrk_run "$KPID" "http://127.0.0.1:$KPORT/api/kytos/topology/v3/" >>"$WORK/a_plain"
    stop_pid "$KPID"

    # every route needs a token: one Bearer token, the same on every request
    auth_start token "$WORK/auth-data" --set api_auth_all=true || return 1
    tok=$(curl -sf -u "bench:$pw" "http://127.0.0.1:$KPORT/api/kytos/core/auth/login/" |
          python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])') ||
      { echo "login failed"; cat "$WORK/kytosd-auth-token.log"; stop_pid "$KPID"; return 1; }
    auth_wait_topology http -H "Authorization: Bearer $tok" || { stop_pid "$KPID"; return 1; }
    code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$KPORT/api/kytos/topology/v3/")
    [ "$code" = 401 ] || echo "(warning: without a token GET topology/v3 answered $code, not 401)"
    printf 'wrk.headers["Authorization"] = "Bearer %s"\n' "$tok" >"$WORK/auth-token.lua"
    wrk_run "$KPID" "http://127.0.0.1:$KPORT/api/kytos/topology/v3/" "$WORK/auth-token.lua" >>"$WORK/a_token"
    stop_pid "$KPID"

    # HTTPS (no auth), against HTTP just before it
    auth_start http "$WORK/auth-data-http-$r" || return 1
    auth_wait_topology http || return 1
    wrk_run "$KPID" "http://127.0.0.1:$KPORT/api/kytos/topology/v3/" >>"$WORK/a_http"
    stop_pid "$KPID"
    auth_start https "$WORK/auth-data-https-$r" --set "api_tls_cert=\"$WORK/auth-tls.pem\"" \
      --set "api_tls_key=\"$WORK/auth-tls.key\"" || return 1
    auth_wait_topology https -k || { stop_pid "$KPID"; return 1; }
    wrk_run "$KPID" "https://127.0.0.1:$KPORT/api/kytos/topology/v3/" >>"$WORK/a_https"
    stop_pid "$KPID"
  done
  echo "GET topology/v3 body: $(wc -c <"$WORK/auth-topo.json") bytes"
  table_row "case" "req/s" "p50 ms" "p99 ms" "CPU us/req" "non-2xx" "sock err"
  for f in a_plain a_token a_http a_https; do
    case $f in a_plain) n="HTTP, no auth";; a_token) n="HTTP, api_auth_all + Bearer token";;
      a_http) n="HTTP (before HTTPS)";; a_https) n="HTTPS (api_tls_cert)";; esac
    table_row "$n" "$(cut -d' ' -f1 "$WORK/$f" | median)" "$(cut -d' ' -f2 "$WORK/$f" | median)" \
      "$(cut -d' ' -f3 "$WORK/$f" | median)" "$(cut -d' ' -f4 "$WORK/$f" | median)" \
      "$(cut -d' ' -f5 "$WORK/$f" | median)" "$(cut -d' ' -f6 "$WORK/$f" | median)"
  done
  awk -v pr="$(cut -d' ' -f1 "$WORK/a_plain" | median)" -v tr="$(cut -d' ' -f1 "$WORK/a_token" | median)" \
      -v pc="$(cut -d' ' -f4 "$WORK/a_plain" | median)" -v tc="$(cut -d' ' -f4 "$WORK/a_token" | median)" \
      -v hr="$(cut -d' ' -f1 "$WORK/a_http" | median)" -v sr="$(cut -d' ' -f1 "$WORK/a_https" | median)" \
      -v hc="$(cut -d' ' -f4 "$WORK/a_http" | median)" -v sc="$(cut -d' ' -f4 "$WORK/a_https" | median)" 'BEGIN {
    tcost = (pc > 0 ? (tc - pc) * 100 / pc : 0)
    printf "Bearer token check: req/s %.0f -> %.0f, CPU per request %+.1f%% (%s the 5%% budget)\n",
      pr, tr, tcost, (tcost < 5 ? "within" : "OVER")
    printf "HTTPS vs HTTP (keep-alive): req/s %.0f -> %.0f (%.2fx), CPU per request %+.1f%%\n",
      hr, sr, (hr > 0 ? sr / hr : 0), (hc > 0 ? (sc - hc) * 100 / hc : 0) }'
  echo
}
