/* host/auth/prompt.c - read a password without echoing it (kytosd -C on a
 * terminal, as Python's getpass); from a pipe, one line as is. */
#include <openssl/crypto.h>
#include <stdio.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

int kh_auth_prompt_password(FILE *in, FILE *out, const char *prompt, char *buf, size_t cap);

int kh_auth_prompt_password(FILE *in, FILE *out, const char *prompt, char *buf, size_t cap)
{
    struct termios old, quiet;
    int fd = fileno(in), hidden = 0, rc = 0;
    size_t n;

    if (prompt) {
        fputs(prompt, out);
        fflush(out);
        if (tcgetattr(fd, &old) == 0) {
            quiet = old;
            quiet.c_lflag &= ~(tcflag_t)ECHO;
            hidden = tcsetattr(fd, TCSAFLUSH, &quiet) == 0;
        }
    }
    if (!fgets(buf, (int)cap, in))
        rc = -1;
    if (hidden) {
        tcsetattr(fd, TCSAFLUSH, &old);
        fputc('\n', out);
    }
    if (rc)
        return -1;
    n = strlen(buf);
    if (n && buf[n - 1] != '\n' && !feof(in)) {
        OPENSSL_cleanse(buf, cap);
        return -1;
    }
    while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
        buf[--n] = '\0';
    return 0;
}
