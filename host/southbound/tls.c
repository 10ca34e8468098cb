/* host/southbound/tls.c - TLS on switch connections (OVS `ssl:`
 * controllers), with OpenSSL's libssl.
 *
 * Each TLS connection's SSL object works on two memory BIOs, not on the
 * socket: the southbound thread recv()s ciphertext as for plain TCP and
 * hands it to the read BIO; whatever OpenSSL wants to send (handshake,
 * records, alerts) lands in the write BIO and goes out through the same
 * path as plain TCP bytes (straight to the socket when nothing is queued,
 * else the send queue).  OpenSSL must not be entered by two threads at
 * once for one SSL object, and senders may be any thread: every SSL call
 * is made under the connection's lock (c->mu), which senders hold anyway.
 * Records are sequenced, so urgent sends are not moved ahead on TLS. */
#include "southbound/sb_impl.h"
#include "util/log.h"
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <stdio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The first error of OpenSSL's queue (this thread's), then cleared. */
static void ssl_err_text(char *buf, size_t n)
{
    unsigned long e = ERR_get_error();

    if (e)
        ERR_error_string_n(e, buf, n);
    else
        snprintf(buf, n, "unknown TLS error");
    ERR_clear_error();
}

static int file_readable(const char *key, const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");

    if (!f) {
        snprintf(err, errlen, "%s: cannot read '%s': %s", key, path, strerror(errno));
        return -1;
    }
    fclose(f);
    return 0;
}

int kh_sb_tls_init(kh_sb *sb, const kh_config *cfg, char *err, size_t errlen)
{
    const char *cert = kh_config_str(cfg, "sb_tls_cert");
    const char *key = kh_config_str(cfg, "sb_tls_key");
    const char *ca = kh_config_str(cfg, "sb_tls_ca_cert");
    STACK_OF(X509_NAME) *names;
    char why[256];
    SSL_CTX *ctx;

    sb->tls_timeout_ms = kh_config_int(cfg, "sb_tls_handshake_timeout_ms");
    if (!*cert && !*key && !*ca)
        return 0;
    if (!*cert || !*key || !*ca) {
        snprintf(err, errlen,
                 "TLS for OpenFlow needs sb_tls_cert, sb_tls_key and sb_tls_ca_cert (the CA that "
                 "signs switches' certificates): %s is not set",
                 !*cert ? "sb_tls_cert" : !*key ? "sb_tls_key" : "sb_tls_ca_cert");
        return -1;
    }
    if (file_readable("sb_tls_cert", cert, err, errlen) != 0 ||
        file_readable("sb_tls_key", key, err, errlen) != 0 ||
        file_readable("sb_tls_ca_cert", ca, err, errlen) != 0)
        return -1;
    ERR_clear_error();
    ctx = SSL_CTX_new(TLS_server_method());
    if (!ctx) {
        ssl_err_text(why, sizeof why);
        snprintf(err, errlen, "TLS for OpenFlow: %s", why);
        return -1;
    }
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION);
    SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
    SSL_CTX_set_num_tickets(ctx, 0);
    if (SSL_CTX_use_certificate_chain_file(ctx, cert) != 1) {
        ssl_err_text(why, sizeof why);
        snprintf(err, errlen, "sb_tls_cert '%s': %s", cert, why);
        goto fail;
    }
    if (SSL_CTX_use_PrivateKey_file(ctx, key, SSL_FILETYPE_PEM) != 1) {
        int mismatch = ERR_GET_REASON(ERR_peek_error()) == X509_R_KEY_VALUES_MISMATCH;
        ssl_err_text(why, sizeof why);
        if (mismatch)
            snprintf(err, errlen, "sb_tls_key '%s' does not match sb_tls_cert '%s'", key, cert);
        else
            snprintf(err, errlen, "sb_tls_key '%s': %s", key, why);
        goto fail;
    }
    if (SSL_CTX_check_private_key(ctx) != 1) {
        ssl_err_text(why, sizeof why);
        snprintf(err, errlen, "sb_tls_key '%s' does not match sb_tls_cert '%s': %s", key, cert, why);
        goto fail;
    }
    if (SSL_CTX_load_verify_locations(ctx, ca, NULL) != 1) {
        ssl_err_text(why, sizeof why);
        snprintf(err, errlen, "sb_tls_ca_cert '%s': %s", ca, why);
        goto fail;
    }
    /* tell the switch which CA its certificate must come from */
    names = SSL_load_client_CA_file(ca);
    if (names)
        SSL_CTX_set_client_CA_list(ctx, names);
    ERR_clear_error();
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, NULL);
    sb->tls_ctx = ctx;
    return 0;
fail:
    SSL_CTX_free(ctx);
    return -1;
}

void kh_sb_tls_free(kh_sb *sb)
{
    SSL_CTX_free(sb->tls_ctx);
    sb->tls_ctx = NULL;
}

int kh_sb_tls_conn_new(kh_sb *sb, kytos_conn *c)
{
    BIO *rb, *wb;

    c->ssl = SSL_new(sb->tls_ctx);
    rb = BIO_new(BIO_s_mem());
    wb = BIO_new(BIO_s_mem());
    if (!c->ssl || !rb || !wb) {
        SSL_free(c->ssl);
        c->ssl = NULL;
        BIO_free(rb);
        BIO_free(wb);
        ERR_clear_error();
        return -1;
    }
    /* an empty read BIO says "retry", not "end of file" */
    BIO_set_mem_eof_return(rb, -1);
    SSL_set_bio(c->ssl, rb, wb);
    c->wbio = wb;
    SSL_set_accept_state(c->ssl);
    atomic_store(&c->handshaking, 1);
    return 0;
}

void kh_sb_tls_conn_free(kytos_conn *c)
{
    SSL_free(c->ssl);   /* frees the BIOs */
    c->ssl = NULL;
    c->wbio = NULL;
}

/* With c->mu held: send what OpenSSL wrote (or drop it when the connection
 * is closing).  KYTOS_OK or the error of kh_sb_conn_out_locked. */
static int flush_locked(kytos_conn *c)
{
    char *p = NULL;
    long n = BIO_get_mem_data(c->wbio, &p);
    int give = 0, rc = KYTOS_OK;

    if (n > 0 && !c->closing && c->fd >= 0)
        rc = kh_sb_conn_out_locked(c, p, (size_t)n, &give, 0);
    (void)BIO_reset(c->wbio);
    return rc;
}

int kh_sb_tls_send_locked(kytos_conn *c, const void *data, size_t len)
{
    char why[200], e[160];
    int w;

    if (atomic_load(&c->handshaking))
        return KYTOS_ESTATE;
    /* SSL_write takes an int: the send queue bound (at most 1 GiB) keeps
     * len below it */
    ERR_clear_error();
    w = SSL_write(c->ssl, data, (int)len);
    if (w <= 0 || (size_t)w != len) {
        ssl_err_text(e, sizeof e);
        snprintf(why, sizeof why, "TLS write: %s", e);
        kh_sb_conn_request_close_locked(c, KH_SB_DC_IO, why);
        return KYTOS_EIO;
    }
    return flush_locked(c);
}

void kh_sb_tls_shutdown_locked(kytos_conn *c)
{
    char *p = NULL;
    long n;

    if (!c->ssl || atomic_load(&c->handshaking))
        return;
    ERR_clear_error();
    (void)SSL_shutdown(c->ssl);   /* queues close_notify in the write BIO */
    ERR_clear_error();
    n = BIO_get_mem_data(c->wbio, &p);
    if (n > 0)
        (void)kh_sendq_push(&c->q, p, (size_t)n, 0, 0);
    (void)BIO_reset(c->wbio);
}

/* The switch's certificate subject, for the log. */
static void peer_subject(kytos_conn *c, char *buf, size_t n)
{
    X509 *x = SSL_get1_peer_certificate(c->ssl);

    buf[0] = '\0';
    if (x) {
        X509_NAME_oneline(X509_get_subject_name(x), buf, (int)n);
        X509_free(x);
    }
}

/* Southbound thread.  The handshake is over: the connection is born. */
static int handshake_done(kh_sb *sb, kytos_conn *c)
{
    char subject[256];

    sb->nhandshaking--;
    peer_subject(c, subject, sizeof subject);
    kh_log(KH_SB_LOGGER, KH_INFO, "New connection from %s (TLS %s, %s, switch certificate %s)",
           c->peer, SSL_get_version(c->ssl), SSL_get_cipher_name(c->ssl), subject);
    kh_sb_publish_new(sb, c);
    return kh_sb_conn_bind(sb, c);
}

void kh_sb_tls_readable(kh_sb *sb, kytos_conn *c, size_t n)
{
    char why[300], e[200];
    int r, err;

    pthread_mutex_lock(&c->mu);
    if (c->closing) {
        pthread_mutex_unlock(&c->mu);
        return;
    }
    if (BIO_write(SSL_get_rbio(c->ssl), sb->rbuf, (int)n) != (int)n) {
        pthread_mutex_unlock(&c->mu);
        kh_sb_conn_teardown(sb, c, KH_SB_DC_IO, "out of memory reading TLS");
        return;
    }
    if (atomic_load(&c->handshaking)) {
        ERR_clear_error();
        r = SSL_do_handshake(c->ssl);
        err = r == 1 ? SSL_ERROR_NONE : SSL_get_error(c->ssl, r);
        if (err == SSL_ERROR_NONE || err == SSL_ERROR_WANT_READ) {
            if (r == 1)
                atomic_store(&c->handshaking, 0);
            flush_locked(c);
            pthread_mutex_unlock(&c->mu);
            if (r != 1 || c->dead)
                return;
            if (handshake_done(sb, c) != 0 || c->dead)
                return;
        } else {
            long v = SSL_get_verify_result(c->ssl);
            ssl_err_text(e, sizeof e);
            if (v != X509_V_OK)
                snprintf(why, sizeof why, "TLS handshake failed: switch certificate: %s (%s)",
                         X509_verify_cert_error_string(v), e);
            else
                snprintf(why, sizeof why, "TLS handshake failed: %s", e);
            flush_locked(c);   /* the alert, if the socket takes it */
            pthread_mutex_unlock(&c->mu);
            kh_log(KH_SB_LOGGER, KH_WARNING, "switch connection from %s refused: %s", c->peer, why);
            kh_sb_conn_teardown(sb, c, KH_SB_DC_TLS, why);
            return;
        }
    } else {
        pthread_mutex_unlock(&c->mu);
    }
    /* the records: OpenFlow bytes, decrypted into rbuf (its ciphertext is
     * in the read BIO already) */
    for (;;) {
        pthread_mutex_lock(&c->mu);
        if (c->closing) {
            pthread_mutex_unlock(&c->mu);
            return;
        }
        ERR_clear_error();
        r = SSL_read(c->ssl, sb->rbuf, (int)sb->read_max);
        err = r > 0 ? SSL_ERROR_NONE : SSL_get_error(c->ssl, r);
        if (err != SSL_ERROR_NONE && err != SSL_ERROR_WANT_READ && err != SSL_ERROR_ZERO_RETURN)
            ssl_err_text(e, sizeof e);
        flush_locked(c);   /* a post-handshake message may want an answer */
        pthread_mutex_unlock(&c->mu);
        if (r > 0) {
            kh_sb_plain_in(sb, c, sb->rbuf, (size_t)r);
            if (c->dead)
                return;
            continue;
        }
        if (err == SSL_ERROR_WANT_READ)
            return;
        if (err == SSL_ERROR_ZERO_RETURN) {
            kh_sb_conn_teardown(sb, c, KH_SB_DC_PEER, "connection closed by the peer (TLS close_notify)");
        } else {
            snprintf(why, sizeof why, "TLS: %s", e);
            kh_sb_conn_teardown(sb, c, KH_SB_DC_IO, why);
        }
        return;
    }
}

void kh_sb_tls_sweep(kh_sb *sb)
{
    int64_t now = kh_sb_mono_ns();
    kytos_conn **all;
    size_t i, n;

    all = kh_sb_table_snapshot(sb, &n);
    for (i = 0; i < n; i++) {
        kytos_conn *c = all[i];
        if (!c->dead && atomic_load(&c->handshaking) &&
            now - c->connected_mono_ns >= sb->tls_timeout_ms * 1000000) {
            char why[160];
            snprintf(why, sizeof why, "TLS handshake not finished in %lld ms",
                     (long long)sb->tls_timeout_ms);
            kh_log(KH_SB_LOGGER, KH_WARNING, "switch connection from %s refused: %s", c->peer, why);
            kh_sb_conn_teardown(sb, c, KH_SB_DC_TLS, why);
        }
        kh_sb_conn_unref(c);
    }
    free(all);
}
