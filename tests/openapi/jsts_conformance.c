/* tests/openapi/jsts_conformance.c - the schema validator against the
 * JSON-Schema-Test-Suite (draft4 as OpenAPI 3.0, draft2020-12 as 3.1).
 *
 * Prints TAP: one line per suite file and draft, then one line per draft
 * checking the number of tests run and skipped against the "expect" lines
 * of jsts-skip.txt, and one line checking that every skip entry matched.
 * A "# draftX: N passed, N failed, N skipped" comment closes each draft.
 * Usage: jsts_conformance [SKIPLIST [SUITEDIR]]; defaults from the
 * environment (top_srcdir, TEST_DATA_DIR). -v prints every failing test. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "schema.h"

struct skip {
    char *draft, *file, *group, *test, *reason;
    unsigned hits;
};

struct expect {
    char draft[32];
    long run, skip;
};

static struct skip *skips;
static size_t nskips;
static struct expect expects[4];
static size_t nexpects;
static unsigned tapno;
static bool verbose;
static bool tap_fail;

static char *trim(char *s)
{
    char *e;
    while (*s == ' ' || *s == '\t')
        s++;
    e = s + strlen(s);
    while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' || e[-1] == '\r'))
        *--e = '\0';
    return s;
}

static int load_skips(const char *path)
{
    FILE *f = fopen(path, "r");
    char line[4096];
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f)) {
        char *fld[5];
        int n = 0;
        char *p = line, *bar;
        if (line[0] == '#' || trim(line)[0] == '\0')
            continue;
        while (n < 5 && (bar = strstr(p, " | ")) != NULL) {
            *bar = '\0';
            fld[n++] = trim(p);
            p = bar + 3;
        }
        if (n < 5)
            fld[n++] = trim(p);
        if (n >= 4 && strcmp(fld[0], "expect") == 0 && nexpects < 4) {
            struct expect *e = &expects[nexpects++];
            snprintf(e->draft, sizeof e->draft, "%s", fld[1]);
            e->run = strtol(fld[2] + 4, NULL, 10);
            e->skip = strtol(fld[3] + 5, NULL, 10);
            continue;
        }
        if (n != 5) {
            fprintf(stderr, "bad skip line: %s\n", line);
            fclose(f);
            return -1;
        }
        skips = realloc(skips, (nskips + 1) * sizeof *skips);
        skips[nskips].draft = strdup(fld[0]);
        skips[nskips].file = strdup(fld[1]);
        skips[nskips].group = strdup(fld[2]);
        skips[nskips].test = strdup(fld[3]);
        skips[nskips].reason = strdup(fld[4]);
        skips[nskips].hits = 0;
        nskips++;
    }
    fclose(f);
    return 0;
}

static struct skip *find_skip(const char *draft, const char *file,
                              const char *group, const char *test)
{
    size_t i;
    for (i = 0; i < nskips; i++) {
        struct skip *s = &skips[i];
        if (strcmp(s->draft, draft) || strcmp(s->file, file))
            continue;
        if (strcmp(s->group, "*") && strcmp(s->group, group))
            continue;
        if (strcmp(s->test, "*") && strcmp(s->test, test))
            continue;
        return s;
    }
    return NULL;
}

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf;
    long n;
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    if (buf) {
        buf[n] = '\0';
        *len = (size_t)n;
    }
    return buf;
}

static int cmpstr(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* relative paths of every .json under dir/sub, sorted */
static void list_files(const char *dir, const char *sub, char ***out, size_t *n)
{
    char path[4096];
    DIR *d;
    struct dirent *e;
    snprintf(path, sizeof path, "%s/%s", dir, sub);
    d = opendir(path);
    if (!d)
        return;
    while ((e = readdir(d)) != NULL) {
        char rel[4096], full[8192];
        struct stat st;
        if (e->d_name[0] == '.')
            continue;
        snprintf(rel, sizeof rel, "%s%s%s", sub, sub[0] ? "/" : "", e->d_name);
        snprintf(full, sizeof full, "%s/%s", dir, rel);
        if (stat(full, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode)) {
            list_files(dir, rel, out, n);
        } else if (strlen(rel) > 5 && !strcmp(rel + strlen(rel) - 5, ".json")) {
            *out = realloc(*out, (*n + 1) * sizeof **out);
            (*out)[(*n)++] = strdup(rel);
        }
    }
    closedir(d);
    qsort(*out, *n, sizeof **out, cmpstr);
}

struct counts {
    long passed, failed, skipped;
};

static void run_file(const char *draft, const char *dir, const char *rel,
                     enum koa_dialect dialect, struct counts *total)
{
    char path[8192], err[512];
    size_t len;
    char *text;
    json_object *doc = NULL;
    struct kytos_openapi_options o;
    struct counts c = { 0, 0, 0 };
    size_t g, ng;
    struct ku_buf fails;

    ku_buf_init(&fails);
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    text = read_all(path, &len);
    memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    o.max_depth = 128;
    o.flags = KYTOS_OPENAPI_F_BIGNUM_AS_DOUBLE;
    koa_options_resolve(&o, &o);
    if (!text || koa_json_parse(text, len, &o, &doc, err, sizeof err) != 0 ||
        !json_object_is_type(doc, json_type_array)) {
        printf("not ok %u - %s/%s: cannot read (%s)\n", ++tapno, draft, rel,
               text ? err : "open failed");
        tap_fail = true;
        free(text);
        json_object_put(doc);
        return;
    }
    free(text);
    ng = json_object_array_length(doc);
    for (g = 0; g < ng; g++) {
        json_object *grp = json_object_array_get_idx(doc, g);
        json_object *schema = json_object_object_get(grp, "schema");
        json_object *tests = json_object_object_get(grp, "tests");
        const char *gdesc = json_object_get_string(json_object_object_get(grp, "description"));
        size_t t, nt = json_object_array_length(tests);
        struct koa_arena arena = { NULL };
        struct koa_compiler comp;
        kytos_openapi_diags *diags = koa_diags_new(rel);
        struct koa_node *node = NULL;
        bool compiled = false;
        /* Formats: asserted in OAS 3.0; in 3.1 (2020-12) an annotation, as
         * the core suite expects, except for the optional format tests,
         * which exist to test the checkers (KYTOS_OPENAPI_FORMATS_ASSERT). */
        struct koa_vlimits lim = { 32, 128, 1000000, 10000,
                                   dialect == KOA_OAS30 ||
                                       strncmp(rel, "optional/format/", 16) == 0,
                                   dialect == KOA_OAS31, false };

        for (t = 0; t < nt; t++) {
            json_object *test = json_object_array_get_idx(tests, t);
            const char *tdesc = json_object_get_string(json_object_object_get(test, "description"));
            json_object *data = json_object_object_get(test, "data");
            bool want = json_object_get_boolean(json_object_object_get(test, "valid"));
            struct skip *sk = find_skip(draft, rel, gdesc, tdesc);
            bool got;
            if (sk) {
                sk->hits++;
                c.skipped++;
                continue;
            }
            if (!compiled) {
                compiled = true;
                koa_compiler_init(&comp, &arena, schema, dialect,
                                  dialect == KOA_OAS30 ? KYTOS_OPENAPI_F_LENIENT : 0,
                                  diags, NULL);
                node = koa_compile(&comp, schema, "#");
                if (node && !koa_compiler_check_cycles(&comp))
                    node = NULL;
                if (!node) {
                    const struct kytos_openapi_diag *dg = kytos_openapi_diags_get(diags, 0);
                    ku_buf_printf(&fails, "# %s / %s: schema does not compile: %s\n",
                                   gdesc, "*", dg ? dg->message : "?");
                }
            }
            if (!node) {
                c.failed++;
                continue;
            }
            got = koa_validate(node, data, &lim, NULL);
            if (got == want) {
                /* the collecting mode must agree with the probe */
                struct koa_verrs errs = { NULL, 0, 0, false };
                bool got2 = koa_validate(node, data, &lim, &errs);
                if (got2 != got || (!got2 && errs.n == 0)) {
                    c.failed++;
                    ku_buf_printf(&fails, "# %s / %s: collect mode disagrees\n",
                                   gdesc, tdesc);
                } else {
                    c.passed++;
                }
                koa_verrs_free(&errs);
            } else {
                c.failed++;
                ku_buf_printf(&fails, "# %s / %s: expected %s, got %s\n", gdesc,
                               tdesc, want ? "valid" : "invalid",
                               got ? "valid" : "invalid");
            }
        }
        if (compiled)
            koa_compiler_done(&comp, NULL, NULL);
        koa_arena_free(&arena);
        kytos_openapi_diags_free(diags);
    }
    json_object_put(doc);
    printf("%s %u - %s/%s: %ld passed, %ld failed, %ld skipped\n",
           c.failed ? "not ok" : "ok", ++tapno, draft, rel, c.passed, c.failed,
           c.skipped);
    if (c.failed) {
        tap_fail = true;
        fputs(ku_buf_str(&fails), stdout);
    }
    ku_buf_free(&fails);
    total->passed += c.passed;
    total->failed += c.failed;
    total->skipped += c.skipped;
}

static void run_draft(const char *suite, const char *draft, enum koa_dialect d)
{
    char dir[4096];
    char **files = NULL;
    size_t n = 0, i;
    struct counts total = { 0, 0, 0 };
    struct expect *e = NULL;

    snprintf(dir, sizeof dir, "%s/%s", suite, draft);
    list_files(dir, "", &files, &n);
    for (i = 0; i < n; i++) {
        run_file(draft, dir, files[i], d, &total);
        free(files[i]);
    }
    free(files);
    for (i = 0; i < nexpects; i++)
        if (!strcmp(expects[i].draft, draft))
            e = &expects[i];
    printf("# %s: %ld passed, %ld failed, %ld skipped\n", draft, total.passed,
           total.failed, total.skipped);
    if (!e) {
        printf("not ok %u - %s: no expect line in the skip list\n", ++tapno, draft);
        tap_fail = true;
    } else if (e->run != total.passed + total.failed || e->skip != total.skipped) {
        printf("not ok %u - %s: ran %ld and skipped %ld tests, expected %ld and %ld "
               "(the suite or the skip list changed)\n", ++tapno, draft,
               total.passed + total.failed, total.skipped, e->run, e->skip);
        tap_fail = true;
    } else {
        printf("ok %u - %s: ran %ld and skipped %ld tests, as expected\n", ++tapno,
               draft, e->run, e->skip);
    }
}

int main(int argc, char **argv)
{
    char skip_path[4096], suite[4096];
    const char *srcdir = getenv("top_srcdir");
    const char *data = getenv("TEST_DATA_DIR");
    struct stat st;
    size_t i;
    bool stale = false;
    int ai = 1;

    if (ai < argc && !strcmp(argv[ai], "-v")) {
        verbose = true;
        ai++;
    }
    snprintf(skip_path, sizeof skip_path, "%s/tests/openapi/jsts-skip.txt",
             srcdir ? srcdir : ".");
    if (ai < argc)
        snprintf(skip_path, sizeof skip_path, "%s", argv[ai++]);
    snprintf(suite, sizeof suite, "%s/json-schema-test-suite",
             data ? data : "tests/data");
    if (ai < argc)
        snprintf(suite, sizeof suite, "%s", argv[ai++]);
    /* the suite ships in tests/data: its absence is a broken tree, not a skip */
    if (stat(suite, &st) != 0 || !S_ISDIR(st.st_mode)) {
        printf("1..1\nnot ok 1 - %s not found\n", suite);
        return 1;
    }
    if (load_skips(skip_path) != 0) {
        printf("1..1\nnot ok 1 - cannot read the skip list %s\n", skip_path);
        return 1;
    }
    run_draft(suite, "draft4", KOA_OAS30);
    run_draft(suite, "draft2020-12", KOA_OAS31);
    for (i = 0; i < nskips; i++) {
        if (!skips[i].hits) {
            printf("# skip entry matched nothing: %s | %s | %s | %s\n", skips[i].draft,
                   skips[i].file, skips[i].group, skips[i].test);
            stale = true;
        }
    }
    printf("%s %u - every skip entry matches a test\n", stale ? "not ok" : "ok", ++tapno);
    if (stale)
        tap_fail = true;
    printf("1..%u\n", tapno);
    for (i = 0; i < nskips; i++) {
        free(skips[i].draft);
        free(skips[i].file);
        free(skips[i].group);
        free(skips[i].test);
        free(skips[i].reason);
    }
    free(skips);
    return tap_fail ? 1 : 0;
}
