# KYTOS_NAPP_INIT: for an out-of-tree NApp's configure.ac.
# Finds kytos-napp.pc and sets KYTOS_NAPP_CFLAGS, KYTOS_NAPP_LIBS,
# KYTOS_TEST_LIBS (the in-process test host), KYTOS_NAPP_LDFLAGS (the
# libtool flags that make a loadable NApp) and nappsdir.
AC_DEFUN([KYTOS_NAPP_INIT], [
  PKG_CHECK_MODULES([KYTOS_NAPP], [kytos-napp])
  PKG_CHECK_VAR([KYTOS_TEST_LIBS], [kytos-napp], [testlibs])
  PKG_CHECK_VAR([nappsdir], [kytos-napp], [nappsdir])
  PKG_CHECK_MODULES([KYTOS_CHECK], [check])
  KYTOS_NAPP_LDFLAGS="-module -avoid-version -shared -export-symbols-regex '^kytos_napp_desc\$\$'"
  KYTOS_NAPP_CFLAGS="$KYTOS_NAPP_CFLAGS -fvisibility=hidden"
  AC_SUBST([KYTOS_NAPP_LDFLAGS])
  AC_SUBST([KYTOS_TEST_LIBS])
  AC_SUBST([nappsdir])
])
