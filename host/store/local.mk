# host/store/local.mk - the document store: embedded SQLite and MongoDB
# backends behind host/store/store.h, their tests and the store benchmark.
noinst_LTLIBRARIES += host/libkh_store.la
host_libkh_store_la_SOURCES = \
	host/store/store.h host/store/store_impl.h host/store/store_doc.h host/store/store_filter.h \
	host/store/store.c host/store/store_api.c host/store/store_path.c host/store/store_value.c \
	host/store/store_update.c host/store/store_proj.c host/store/store_text.c host/store/store_text.h host/store/store_filter.c host/store/store_async.c \
	host/store/store_sqlite.h host/store/store_sqlite_conn.c host/store/store_sqlite_commit.c \
	host/store/store_sqlite_merge.c host/store/store_sqlite_query.c host/store/store_sqlite_index.c \
	host/store/store_sqlite_keycol.c host/store/store_sqlite_walbuf.c \
	host/store/store_mongo.c host/store/store_bson.c host/store/store_bson.h \
	host/util/thread_batch.h
host_libkh_store_la_CFLAGS = $(AM_CFLAGS) $(SQLITE_CFLAGS) $(MONGOC_CFLAGS)
host_libkh_store_la_LIBADD = $(SQLITE_LIBS) $(MONGOC_LIBS) $(JSONC_LIBS) $(CRYPTO_LIBS) -lm

# Store tests link the store library alone (no host core), with util/
# (which the host gets through openapi/libkytos-openapi-core.la).
STORE_TEST_LIBS = host/libkh_store.la util/libkytos-util.la $(TEST_LIBS)

check_PROGRAMS += tests/store/check_store_doc tests/store/check_store_sqlite \
	tests/store/check_store_memory
TESTS += tests/store/check_store_doc tests/store/check_store_sqlite \
	tests/store/check_store_memory

tests_store_check_store_doc_SOURCES = tests/store/check_store_doc.c
tests_store_check_store_doc_CFLAGS = $(TEST_CC) $(MONGOC_CFLAGS)
tests_store_check_store_doc_LDADD = $(STORE_TEST_LIBS)

tests_store_check_store_sqlite_SOURCES = tests/store/check_store_sqlite.c \
	tests/store/conformance.c tests/store/conformance.h
tests_store_check_store_sqlite_CFLAGS = $(TEST_CC) $(SQLITE_CFLAGS)
tests_store_check_store_sqlite_LDADD = $(STORE_TEST_LIBS) $(SQLITE_LIBS)

tests_store_check_store_memory_SOURCES = $(tests_store_check_store_sqlite_SOURCES)
tests_store_check_store_memory_CFLAGS = $(TEST_CC) $(SQLITE_CFLAGS) -DKH_CONF_MEMORY
tests_store_check_store_memory_LDADD = $(STORE_TEST_LIBS) $(SQLITE_LIBS)

# kill -9 durability: crash.sh drives crash_writer.
check_PROGRAMS += tests/store/crash_writer
TESTS += tests/store/crash.sh
EXTRA_DIST += tests/store/crash.sh tests/store/README.md
tests_store_crash_writer_SOURCES = tests/store/crash_writer.c
tests_store_crash_writer_CFLAGS = $(AM_CFLAGS)
tests_store_crash_writer_LDADD = host/libkh_store.la util/libkytos-util.la $(JSONC_LIBS)

# MongoDB: the conformance suite against a real server (KYTOS_TEST_MONGODB_URI,
# skipped without it) and a wire-level test against mockupdb.
check_PROGRAMS += tests/store/check_store_mongo tests/store/mongo_driver
TESTS += tests/store/check_store_mongo tests/store/mongo_wire.py
EXTRA_DIST += tests/store/mongo_wire.py
tests_store_check_store_mongo_SOURCES = tests/store/check_store_mongo.c \
	tests/store/conformance.c tests/store/conformance.h
tests_store_check_store_mongo_CFLAGS = $(TEST_CC)
tests_store_check_store_mongo_LDADD = $(STORE_TEST_LIBS)
tests_store_mongo_driver_SOURCES = tests/store/mongo_driver.c
tests_store_mongo_driver_CFLAGS = $(AM_CFLAGS)
tests_store_mongo_driver_LDADD = host/libkh_store.la util/libkytos-util.la $(JSONC_LIBS)

# make bench: embedded store throughput (the lead wires it into the bench target).
noinst_PROGRAMS += bench/store_bench
bench_store_bench_SOURCES = bench/store_bench.c
bench_store_bench_CFLAGS = $(AM_CFLAGS)
bench_store_bench_LDADD = host/libkh_store.la util/libkytos-util.la $(JSONC_LIBS)

# Instruction counts of store writes under callgrind (see its header).
noinst_PROGRAMS += tests/store/store_perf
tests_store_store_perf_SOURCES = tests/store/store_perf.c
tests_store_store_perf_CFLAGS = $(AM_CFLAGS)
tests_store_store_perf_LDADD = host/libkh_store.la util/libkytos-util.la $(JSONC_LIBS)
