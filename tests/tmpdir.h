/* tests/tmpdir.h - a test program's temporary directory, made and removed
 * by main (the parent process): a failed Check assertion ends the test's
 * own process with _exit, so a removal there would not run. */
#ifndef KYTOS_TESTS_TMPDIR_H
#define KYTOS_TESTS_TMPDIR_H

#include <stdio.h>
#include <stdlib.h>

static char tmp_dir[64];

/* /tmp/<name>.XXXXXX into tmp_dir ("" when it cannot be made). */
static inline void tmp_dir_make(const char *name)
{
    snprintf(tmp_dir, sizeof tmp_dir, "/tmp/%s.XXXXXX", name);
    if (!mkdtemp(tmp_dir))
        tmp_dir[0] = '\0';
}

static inline void tmp_dir_remove(void)
{
    char cmd[96];

    if (!tmp_dir[0])
        return;
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_dir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", tmp_dir);
}

#endif
