# plugins/: the NApps shipped with the host.  Each keeps its rules in
# plugins/<name>/local.mk.  `make` also copies every NApp .so into
# plugins/napps/, the directory the README's run command points kytosd at.
include plugins/hello/local.mk
include plugins/flow_manager/local.mk
include plugins/mef_eline/local.mk

all-local: napps-dir
napps-dir: $(napps_LTLIBRARIES)
	@mkdir -p plugins/napps
	@for la in $(napps_LTLIBRARIES); do \
	  so=plugins/.libs/`basename $$la .la`.so; \
	  if test -f $$so && ! cmp -s $$so plugins/napps/`basename $$so`; then \
	    cp $$so plugins/napps/.tmp.`basename $$so` && \
	    mv -f plugins/napps/.tmp.`basename $$so` plugins/napps/`basename $$so`; \
	  fi; \
	done
clean-local: clean-napps-dir
clean-napps-dir:
	-rm -rf plugins/napps
.PHONY: napps-dir clean-napps-dir
include plugins/simnet/local.mk
include plugins/topology/local.mk
include plugins/of_core/local.mk
include plugins/of_lldp/local.mk
include plugins/pathfinder/local.mk
include plugins/of_l2ls/local.mk
