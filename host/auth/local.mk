# host/auth/: users, tokens, roles, login throttling, the audit trail
# (docs/auth.md).  In libkh_core: it answers core routes and checks
# requests for the REST front door.
KH_AUTH_JWT_SRC = host/auth/b64.c host/auth/b64.h host/auth/jwt.c host/auth/jwt.h
host_libkh_core_la_SOURCES += $(KH_AUTH_JWT_SRC) \
	host/auth/auth.c host/auth/auth.h host/auth/auth_impl.h \
	host/auth/password.c host/auth/password.h \
	host/auth/users.c host/auth/tokens.c host/auth/throttle.c host/auth/prompt.c

check_PROGRAMS += tests/auth/check_jwt tests/auth/check_password
TESTS += tests/auth/check_jwt tests/auth/check_password
tests_auth_check_jwt_SOURCES = tests/auth/check_jwt.c $(KH_AUTH_JWT_SRC)
tests_auth_check_jwt_CFLAGS = $(TEST_CC)
tests_auth_check_jwt_LDADD = $(TEST_LIBS) $(JSONC_LIBS) $(CRYPTO_LIBS)
tests_auth_check_password_SOURCES = tests/auth/check_password.c host/auth/password.c \
	host/auth/b64.c host/auth/b64.h
tests_auth_check_password_CFLAGS = $(TEST_CC)
tests_auth_check_password_LDADD = $(TEST_LIBS) $(JSONC_LIBS) $(CRYPTO_LIBS)

# libFuzzer target for the token parser (configure --enable-fuzzing
# CC=clang; tests/fuzz/run-fuzz.sh runs it).
EXTRA_DIST += tests/fuzz/jwt_verify_fuzz.c tests/fuzz/run-jwt-fuzz.sh
if ENABLE_FUZZING
JWT_FUZZ_FLAGS = -fsanitize=fuzzer,address,undefined -fno-omit-frame-pointer
noinst_PROGRAMS += tests/fuzz/jwt_verify_fuzz
tests_fuzz_jwt_verify_fuzz_SOURCES = tests/fuzz/jwt_verify_fuzz.c $(KH_AUTH_JWT_SRC)
tests_fuzz_jwt_verify_fuzz_CFLAGS = $(AM_CFLAGS) $(JWT_FUZZ_FLAGS)
tests_fuzz_jwt_verify_fuzz_LDFLAGS = $(JWT_FUZZ_FLAGS)
tests_fuzz_jwt_verify_fuzz_LDADD = $(JSONC_LIBS) $(CRYPTO_LIBS)
endif
