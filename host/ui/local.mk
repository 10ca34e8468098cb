# host/ui/: the web UI (Kytos' UI routes, static files, the dashboard built
# into kytosd) and the live event and log streams.
host_libkh_core_la_SOURCES += \
	host/ui/ui.c host/ui/ui.h \
	host/ui/ui_path.c host/ui/ui_path.h \
	host/ui/napp_files.c host/ui/napp_files.h \
	host/ui/streams.c host/ui/streams.h
nodist_host_libkh_core_la_SOURCES = host/ui/dashboard_files.c

# The dashboard's files, embedded in kytosd (no build step, nothing to
# download at run time): one C string each and a table by name.
KH_DASHBOARD_FILES = host/ui/dashboard/index.html host/ui/dashboard/app.js \
	host/ui/dashboard/style.css
EXTRA_DIST += $(KH_DASHBOARD_FILES)
BUILT_SOURCES += host/ui/dashboard_files.c
CLEANFILES += host/ui/dashboard_files.c
host/ui/dashboard_files.c: $(KH_DASHBOARD_FILES:%=$(srcdir)/%) $(top_srcdir)/scripts/kytos-embed
	$(AM_V_GEN)mkdir -p host/ui && { \
	  for f in $(KH_DASHBOARD_FILES); do \
	    s=dash_$$(basename $$f | tr -c 'A-Za-z0-9_\n' _); \
	    $(SHELL) $(top_srcdir)/scripts/kytos-embed $(srcdir)/$$f $$s || exit 1; \
	  done; \
	  echo '#include "ui/ui.h"'; \
	  echo 'const struct kh_ui_embedded kh_ui_dashboard[] = {'; \
	  for f in $(KH_DASHBOARD_FILES); do \
	    b=$$(basename $$f); s=dash_$$(echo $$b | tr -c 'A-Za-z0-9_\n' _); \
	    echo "    {\"$$b\", $$s, sizeof $$s - 1},"; \
	  done; \
	  echo '    {0, 0, 0}};'; \
	} > $@-t && mv $@-t $@
