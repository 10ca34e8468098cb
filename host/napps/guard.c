/* host/napps/guard.c - see guard.h.
 *
 * Each guarded call records a sigjmp_buf and the NApp's load address in
 * thread-local storage.  The signal handler (on an alternate stack, so a
 * stack overflow can be handled too) checks that the faulting instruction
 * lies in that NApp's object (dladdr), and only then jumps back.  SA_NODEFER
 * keeps the signal unblocked after the jump, so sigsetjmp need not save the
 * mask (no system call per request). */
#include "napps/guard.h"
#include "core/host.h"
#include "util/log.h"
#include <dlfcn.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

/* Off under AddressSanitizer and ThreadSanitizer, which report a fault
 * themselves (and TSan cannot follow a siglongjmp out of a handler). */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define GUARD_OFF 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define GUARD_OFF 1
#endif
#endif

#define ALT_STACK_SIZE (64 * 1024)

static __thread int tls_sig;

#ifdef GUARD_OFF
int kh_guard_enabled(void) { return 0; }
int kh_guard_call(kytos_napp *n, int (*fn)(void *), void *arg)
{
    (void)n;
    return fn(arg);
}
#else

static __thread sigjmp_buf *tls_jb;
static __thread kytos_napp *tls_napp;
static __thread int tls_altstack;
static pthread_key_t alt_key;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static const int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL};

static void *fault_pc(void *uctx)
{
#if defined(__x86_64__)
    return (void *)((ucontext_t *)uctx)->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
    return (void *)((ucontext_t *)uctx)->uc_mcontext.pc;
#else
    (void)uctx;
    return NULL;
#endif
}

static void on_fault(int sig, siginfo_t *si, void *uctx)
{
    kytos_napp *n = tls_napp;
    (void)si;
    if (tls_jb && n) {
        Dl_info pc, self;
        void *ip = fault_pc(uctx);
        if (ip && dladdr(ip, &pc) && dladdr(kh_napp_desc_addr(n), &self) &&
            pc.dli_fbase == self.dli_fbase) {
            tls_sig = sig;
            siglongjmp(*tls_jb, 1);
        }
    }
    /* not in NApp code: restore the default action and let it kill us */
    {
        static const char msg[] = "kytosd: fatal signal outside a NApp's own code\n";
        if (write(2, msg, sizeof msg - 1) < 0) {
            /* nothing more to do */
        }
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

static void free_alt(void *p)
{
    stack_t ss = {.ss_flags = SS_DISABLE};
    sigaltstack(&ss, NULL);
    free(p);
}

static void install(void)
{
    struct sigaction sa;
    size_t i;
    pthread_key_create(&alt_key, free_alt);
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    for (i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        sigaction(sigs[i], &sa, NULL);
}

int kh_guard_enabled(void) { return 1; }

static void ensure_altstack(void)
{
    stack_t ss;
    if (tls_altstack)
        return;
    tls_altstack = 1;
    ss.ss_sp = malloc(ALT_STACK_SIZE);
    ss.ss_size = ALT_STACK_SIZE;
    ss.ss_flags = 0;
    if (ss.ss_sp && sigaltstack(&ss, NULL) == 0)
        pthread_setspecific(alt_key, ss.ss_sp);
    else
        free(ss.ss_sp);
}

int kh_guard_call(kytos_napp *n, int (*fn)(void *), void *arg)
{
    sigjmp_buf jb, *saved_jb = tls_jb;
    kytos_napp *saved_napp = tls_napp;
    volatile int rc;

    if (!n)
        return fn(arg);
    pthread_once(&once, install);
    ensure_altstack();
    if (sigsetjmp(jb, 0) == 0) {
        tls_jb = &jb;
        tls_napp = n;
        rc = fn(arg);
    } else {
        rc = KH_ECRASHED;
    }
    tls_jb = saved_jb;
    tls_napp = saved_napp;
    return rc;
}
#endif /* GUARD_OFF */

int kh_guard_last_signal(void) { return tls_sig; }
