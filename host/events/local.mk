# host/events/local.mk - the event bus and its tests.
noinst_LTLIBRARIES += host/libkh_events.la
host_libkh_events_la_SOURCES = \
	host/events/eventbus.h host/events/eventbus.c host/events/eventbus_api.c \
	host/events/event_util.h host/events/event_util.c \
	host/events/event_strmap.h host/events/event_strmap.c \
	host/events/event_obj.h host/events/event_obj.c \
	host/events/event_buffer.h host/events/event_buffer.c \
	host/events/event_match.h host/events/event_match.c \
	host/events/event_conf.h host/events/event_conf.c \
	host/events/deadletter.h host/events/deadletter.c \
	host/events/deadletter_ops.h host/events/deadletter_ops.c host/events/deadletter_rest.c \
	host/events/pacer.h host/events/pacer.c \
	host/events/timer.h host/events/timer.c \
	host/events/queue_monitor.h host/events/queue_monitor.c
host_libkh_events_la_CFLAGS = $(AM_CFLAGS)
host_libkh_events_la_LIBADD = $(JSONC_LIBS)

# Unit tests link the bus without the core: tests/events/fake_napp.c stands
# in for the NApp hooks.
EVENTS_TEST_LDADD = host/libkh_events.la host/libkh_util.la $(TEST_LIBS)
EVENTS_TEST_SRC = tests/events/fake_napp.h tests/events/fake_napp.c

check_PROGRAMS += tests/events/check_buffer tests/events/check_match \
	tests/events/check_conf tests/events/check_bus tests/events/check_deadletter \
	tests/events/check_pacer tests/events/check_timer tests/events/check_qmon \
	tests/events/check_api
TESTS += tests/events/check_buffer tests/events/check_match \
	tests/events/check_conf tests/events/check_bus tests/events/check_deadletter \
	tests/events/check_pacer tests/events/check_timer tests/events/check_qmon \
	tests/events/check_api

tests_events_check_buffer_SOURCES = tests/events/check_buffer.c
tests_events_check_buffer_CFLAGS = $(TEST_CC)
tests_events_check_buffer_LDADD = $(EVENTS_TEST_LDADD)
tests_events_check_match_SOURCES = tests/events/check_match.c
tests_events_check_match_CFLAGS = $(TEST_CC)
tests_events_check_match_LDADD = $(EVENTS_TEST_LDADD)
tests_events_check_conf_SOURCES = tests/events/check_conf.c
tests_events_check_conf_CFLAGS = $(TEST_CC)
tests_events_check_conf_LDADD = $(EVENTS_TEST_LDADD)
tests_events_check_bus_SOURCES = tests/events/check_bus.c $(EVENTS_TEST_SRC)
tests_events_check_bus_CFLAGS = $(TEST_CC)
tests_events_check_bus_LDADD = $(EVENTS_TEST_LDADD)
tests_events_check_deadletter_SOURCES = tests/events/check_deadletter.c $(EVENTS_TEST_SRC)
tests_events_check_deadletter_CFLAGS = $(TEST_CC)
tests_events_check_deadletter_LDADD = $(EVENTS_TEST_LDADD)
tests_events_check_pacer_SOURCES = tests/events/check_pacer.c $(EVENTS_TEST_SRC)
tests_events_check_pacer_CFLAGS = $(TEST_CC)
tests_events_check_pacer_LDADD = $(EVENTS_TEST_LDADD)
tests_events_check_timer_SOURCES = tests/events/check_timer.c $(EVENTS_TEST_SRC)
tests_events_check_timer_CFLAGS = $(TEST_CC)
tests_events_check_timer_LDADD = $(EVENTS_TEST_LDADD)
tests_events_check_qmon_SOURCES = tests/events/check_qmon.c $(EVENTS_TEST_SRC)
tests_events_check_qmon_CFLAGS = $(TEST_CC)
tests_events_check_qmon_LDADD = $(EVENTS_TEST_LDADD)
# check_api defines the core functions it needs (kh_napp_*, kh_req_*, ...).
tests_events_check_api_SOURCES = tests/events/check_api.c $(EVENTS_TEST_SRC)
tests_events_check_api_CFLAGS = $(TEST_CC)
tests_events_check_api_LDADD = $(EVENTS_TEST_LDADD)

# make bench: events/s publish -> handler (1 and 4 subscribers), p99 latency.
noinst_PROGRAMS += bench/event_bench
bench_event_bench_SOURCES = bench/event_bench.c $(EVENTS_TEST_SRC)
bench_event_bench_CFLAGS = $(AM_CFLAGS) -I$(top_srcdir)/tests
bench_event_bench_LDADD = host/libkh_events.la host/libkh_util.la $(JSONC_LIBS)
