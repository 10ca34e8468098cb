# kytos_napp.m4 - macros for an out-of-tree NApp's configure.ac (installed
# with kytos-c into $(datadir)/aclocal).  See the template NApp, installed in
# $(datadir)/kytos-c/napp-template, for a configure.ac and Makefile.am that
# use them.
#
# KYTOS_NAPP_INIT (after LT_INIT) finds kytos-napp.pc and sets, each with
# AC_SUBST:
#   KYTOS_NAPP_CFLAGS   compile flags of the NApp and its tests: the kytos
#                       headers, json-c, -fvisibility=hidden
#   KYTOS_NAPP_LIBS     what the NApp links (json-c)
#   KYTOS_NAPP_LDFLAGS  libtool flags of a loadable NApp (-avoid-version
#                       -shared, only kytos_napp_desc and kytos_napp_ui exported).  Write
#                       `-module $(KYTOS_NAPP_LDFLAGS)` in Makefile.am:
#                       automake must see -module itself to accept a name
#                       without "lib" (it is also inside, harmlessly).
#   KYTOS_EMBED         the kytos-embed script (KYTOS_PROG_EMBED below)
#   nappsdir            where `make install` puts the NApp: --with-nappsdir=DIR,
#                       else ${libdir}/kytos-c/napps under the NApp's own
#                       --prefix (so the NApp never writes into the kit's)
#   KYTOS_NAPPSDIR      the directory the installed kytosd loads NApps from
#                       (kytos-napp.pc's nappsdir): --with-nappsdir=that to
#                       install there
#   KYTOS_TEST_LIBS     the in-process test host, libkytos-test, with an rpath
#                       to its directory (works without libtool's .la files)
#   KYTOS_CHECK_CFLAGS, KYTOS_CHECK_LIBS
#                       Check, when the tests are built (else empty)
# and the automake conditional KYTOS_NAPP_TESTS: --enable-tests requires
# Check, --disable-tests builds no tests and needs no Check, and by default
# tests are built when Check is found.
AC_DEFUN([KYTOS_NAPP_INIT], [
  AC_REQUIRE([PKG_PROG_PKG_CONFIG])
  PKG_CHECK_MODULES([KYTOS_NAPP], [kytos-napp])
  PKG_CHECK_VAR([KYTOS_TEST_LIBS], [kytos-napp], [testlibs])
  PKG_CHECK_VAR([KYTOS_NAPPSDIR], [kytos-napp], [nappsdir])
  KYTOS_PROG_EMBED
  AC_ARG_WITH([nappsdir],
    [AS_HELP_STRING([--with-nappsdir=DIR],
      [install the NApp into DIR @<:@LIBDIR/kytos-c/napps@:>@; kytosd's own is in kytos-napp.pc (pkg-config --variable=nappsdir kytos-napp)])],
    [nappsdir=$withval], [nappsdir='${libdir}/kytos-c/napps'])
  AC_ARG_ENABLE([tests],
    [AS_HELP_STRING([--enable-tests@<:@=auto|yes|no@:>@],
      [build the tests (need Check) @<:@auto: when Check is found@:>@])],
    [], [enable_tests=auto])
  AS_CASE([$enable_tests],
    [no], [],
    [yes], [PKG_CHECK_MODULES([KYTOS_CHECK], [check])],
    [PKG_CHECK_MODULES([KYTOS_CHECK], [check], [enable_tests=yes],
       [enable_tests=no
        AC_MSG_WARN([Check not found: building no tests (--enable-tests requires them)])])])
  AM_CONDITIONAL([KYTOS_NAPP_TESTS], [test "x$enable_tests" = xyes])
  KYTOS_NAPP_LDFLAGS="-module -avoid-version -shared -export-symbols-regex '^kytos_napp_(desc|ui)\$\$'"
  KYTOS_NAPP_CFLAGS="$KYTOS_NAPP_CFLAGS -fvisibility=hidden"
  AC_SUBST([KYTOS_NAPP_LDFLAGS])
  AC_SUBST([KYTOS_TEST_LIBS])
  AC_SUBST([KYTOS_NAPPSDIR])
  AC_SUBST([KYTOS_CHECK_CFLAGS])
  AC_SUBST([KYTOS_CHECK_LIBS])
  AC_SUBST([nappsdir])
  AS_IF([test "x$KYTOS_NAPPSDIR" != x],
    [AC_MSG_NOTICE([the NApp installs into $nappsdir; kytosd loads NApps from $KYTOS_NAPPSDIR])])
])

# KYTOS_PROG_EMBED sets KYTOS_EMBED (AC_SUBST) to the kytos-embed script,
# which turns openapi.yml into C: the kit's own (kytos-napp.pc's
# kytos_embed), else one on PATH.  Fails when there is none.
AC_DEFUN([KYTOS_PROG_EMBED], [
  AC_REQUIRE([PKG_PROG_PKG_CONFIG])
  AS_IF([test "x$KYTOS_EMBED" = x], [
    PKG_CHECK_VAR([KYTOS_EMBED], [kytos-napp], [kytos_embed])
    AS_IF([test "x$KYTOS_EMBED" != x && test ! -x "$KYTOS_EMBED"], [KYTOS_EMBED=])
    AS_IF([test "x$KYTOS_EMBED" = x], [AC_PATH_PROG([KYTOS_EMBED], [kytos-embed])])
  ])
  AS_IF([test "x$KYTOS_EMBED" = x], [AC_MSG_ERROR([kytos-embed not found (install kytos-c, or set KYTOS_EMBED)])])
  AC_SUBST([KYTOS_EMBED])
])
