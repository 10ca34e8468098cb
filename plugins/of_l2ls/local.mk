# kytos/of_l2ls NApp, Kytos' L2 learning switch (plugins/of_l2ls/main.c describes it).
napps_LTLIBRARIES += plugins/of_l2ls.la
plugins_of_l2ls_la_SOURCES = plugins/of_l2ls/main.c \
	plugins/of_l2ls/mac_table.c plugins/of_l2ls/mac_table.h \
	plugins/common/settings.c plugins/common/settings.h
plugins_of_l2ls_la_CFLAGS = $(NAPP_CC)
plugins_of_l2ls_la_LDFLAGS = $(NAPP_LINK)
plugins_of_l2ls_la_LIBADD = $(JSONC_LIBS)

# Through the in-process test host with of_core (and flow_manager for its path).
check_PROGRAMS += tests/napps/test_of_l2ls
TESTS += tests/napps/test_of_l2ls
tests_napps_test_of_l2ls_SOURCES = tests/napps/test_of_l2ls.c
tests_napps_test_of_l2ls_CFLAGS = $(TEST_CC) -DNAPP_DIR='"$(abs_top_builddir)/plugins/.libs"'
tests_napps_test_of_l2ls_LDADD = libkytos-test.la $(TEST_LIBS)

# On real Open vSwitch: only of_core and of_l2ls, hosts on a chain of three
# switches.  SKIP without OVS or root.
TESTS += tests/ovs/test_of_l2ls_ovs.py
EXTRA_DIST += tests/ovs/test_of_l2ls_ovs.py
