# bench/: `make bench` builds the benchmark programs and runs bench/run-bench.sh.
noinst_PROGRAMS += bench/ceiling bench/openloop
bench_ceiling_SOURCES = bench/ceiling.c bench/body8k.h
bench_ceiling_CFLAGS = $(AM_CFLAGS) $(MHD_CFLAGS)
bench_ceiling_LDADD = $(MHD_LIBS)
bench_openloop_SOURCES = bench/openloop.c
bench_openloop_CFLAGS = $(AM_CFLAGS)

check_LTLIBRARIES += bench/benchnapp.la
bench_benchnapp_la_SOURCES = bench/benchnapp.c bench/body8k.h
nodist_bench_benchnapp_la_SOURCES = bench/bench_spec.c
bench/bench_spec.c: $(srcdir)/plugins/mef_eline/openapi.yml $(top_srcdir)/scripts/kytos-embed
	$(AM_V_GEN)mkdir -p bench && $(SHELL) $(top_srcdir)/scripts/kytos-embed $(srcdir)/plugins/mef_eline/openapi.yml bench_openapi > $@
CLEANFILES += bench/bench_spec.c
bench_benchnapp_la_CFLAGS = $(NAPP_CC)
bench_benchnapp_la_LDFLAGS = $(NAPP_LINK) -rpath /nowhere
bench_benchnapp_la_LIBADD = $(JSONC_LIBS)

EXTRA_DIST += bench/run-bench.sh bench/napps-bench.sh bench/auth-bench.sh bench/southbound_bench.py bench/scale-bench.py bench/failover-bench.py bench/sqlite-keys-bench.py bench/ovs-scale-bench.py bench/README.md

# (sbproto: the southbound part's baseline for PACKET_IN)
bench: all bench/benchnapp.la tests/southbound/sbproto.la $(noinst_PROGRAMS)
	BUILD_DIR=$(abs_top_builddir) $(SHELL) $(top_srcdir)/bench/run-bench.sh
.PHONY: bench

# cbench-style OpenFlow 1.3 load generator (bench/cbench.c; the cbench part)
noinst_PROGRAMS += bench/cbench
bench_cbench_SOURCES = bench/cbench.c
bench_cbench_CFLAGS = $(AM_CFLAGS)
bench_cbench_LDADD = -lm
