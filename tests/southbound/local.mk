# tests/southbound/: the OpenFlow server (host/southbound/): its building
# blocks alone, then the whole server over loopback sockets in the test host
# with sbproto, a tiny protocol NApp written against the public ABI.
check_LTLIBRARIES += tests/southbound/sbproto.la
tests_southbound_sbproto_la_SOURCES = tests/southbound/sbproto.c
tests_southbound_sbproto_la_CFLAGS = $(NAPP_CC)
tests_southbound_sbproto_la_LDFLAGS = $(TESTNAPP_LINK)
tests_southbound_sbproto_la_LIBADD = $(JSONC_LIBS)

check_PROGRAMS += tests/southbound/check_sb_units tests/southbound/check_southbound
TESTS += tests/southbound/check_sb_units tests/southbound/check_southbound
tests_southbound_check_sb_units_SOURCES = tests/southbound/check_sb_units.c
tests_southbound_check_sb_units_CFLAGS = $(TEST_CC)
tests_southbound_check_sb_units_LDADD = $(KH_HOST_LIBS) $(TEST_LIBS)
tests_southbound_check_southbound_SOURCES = tests/southbound/check_southbound.c
tests_southbound_check_southbound_CFLAGS = $(TEST_CC) \
	-DSBPROTO_DIR='"$(abs_top_builddir)/tests/southbound/.libs"'
tests_southbound_check_southbound_LDADD = libkytos-test.la $(TEST_LIBS) -lpthread

# kytosd end to end: status/ shows the bound OpenFlow address.
TESTS += tests/e2e/test_southbound.py
EXTRA_DIST += tests/e2e/test_southbound.py

# OpenFlow over TLS (sb_tls_*): real OVS over ssl: with OVS' PKI, refused
# clients (wrong CA, no certificate, plain TCP, silent).  SKIP without OVS,
# ovs-pki or root.
TESTS += tests/ovs/test_of_tls.py
EXTRA_DIST += tests/ovs/test_of_tls.py
