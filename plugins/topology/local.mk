# kytos/topology NApp
napps_LTLIBRARIES += plugins/topology.la
plugins_topology_la_SOURCES = \
	plugins/topology/main.c plugins/topology/topo.h \
	plugins/topology/model.c plugins/topology/view.c plugins/topology/snapshot.c \
	plugins/topology/op.c plugins/topology/linkstate.c plugins/topology/persist.c \
	plugins/topology/events.c plugins/topology/rest_util.c plugins/topology/rest_get.c \
	plugins/topology/rest_switch.c plugins/topology/rest_intf.c plugins/topology/rest_link.c \
	plugins/topology/linkid.c plugins/topology/linkid.h \
	plugins/topology/pyfloat.c plugins/topology/pyfloat.h
nodist_plugins_topology_la_SOURCES = plugins/topology/openapi_spec.c
plugins_topology_la_CFLAGS = $(NAPP_CC) $(CRYPTO_CFLAGS)
plugins_topology_la_LDFLAGS = $(NAPP_LINK)
plugins_topology_la_LIBADD = $(JSONC_LIBS) $(CRYPTO_LIBS) -lm
plugins/topology/openapi_spec.c: $(srcdir)/plugins/topology/openapi.yml $(top_srcdir)/scripts/kytos-embed
	$(AM_V_GEN)mkdir -p plugins/topology && $(SHELL) $(top_srcdir)/scripts/kytos-embed $(srcdir)/plugins/topology/openapi.yml topology_openapi > $@
BUILT_SOURCES += plugins/topology/openapi_spec.c
CLEANFILES += plugins/topology/openapi_spec.c
EXTRA_DIST += plugins/topology/openapi.yml
