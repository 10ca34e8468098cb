# host/events.mk: the event bus (issue 5) and its tests.
noinst_LTLIBRARIES += host/libkh_events.la
host_libkh_events_la_SOURCES = \
	host/eventbus.h host/eventbus.c host/eventbus_api.c \
	host/event_util.h host/event_util.c \
	host/event_strmap.h host/event_strmap.c \
	host/event_obj.h host/event_obj.c \
	host/event_buffer.h host/event_buffer.c \
	host/event_match.h host/event_match.c \
	host/event_conf.h host/event_conf.c \
	host/deadletter.h host/deadletter.c \
	host/deadletter_ops.h host/deadletter_ops.c host/deadletter_rest.c \
	host/pacer.h host/pacer.c \
	host/timer.h host/timer.c \
	host/queue_monitor.h host/queue_monitor.c
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
