/* host/util/conf_keys.h - every [daemon] key kytosd knows, in one table
 * (as nginx's command tables): name, type, default, bounds, one line of
 * documentation.  conf.c takes its defaults from it, refuses values out of
 * its bounds, and docs/configuration.md is generated from it
 * (kytosd --print-config-reference; tests/host/config_reference.sh). */
#ifndef KH_CONF_KEYS_H
#define KH_CONF_KEYS_H

#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>

enum kh_conf_type {
    KH_CONF_BOOL,       /* true/false (also 1/0, "yes"/"no", "on"/"off") */
    KH_CONF_INT,        /* an integer in min..max (or one of `words`) */
    KH_CONF_STRING,     /* any string */
    KH_CONF_CHOICE,     /* one of `words` */
    KH_CONF_OBJECT,     /* a JSON object (checked by the subsystem that reads it) */
    KH_CONF_ARRAY,      /* a JSON array */
};

struct kh_conf_key {
    const char *name;
    enum kh_conf_type type;
    const char *def;        /* the default, as JSON text */
    int64_t min, max;       /* KH_CONF_INT */
    const char *words;      /* KH_CONF_CHOICE: "a|b"; KH_CONF_INT: strings also taken */
    const char *doc;        /* one line, Markdown */
    int kytos;              /* one of Kytos' own keys (else a kytos-c addition) */
};

extern const struct kh_conf_key kh_conf_keys[];
extern const size_t kh_conf_nkeys;

/* The key's entry, or NULL for a key kytosd does not know. */
const struct kh_conf_key *kh_conf_key(const char *name);
/* Does v (NULL = JSON null: the default) suit k?  0, or -1 with a message
 * naming the key, what it got and what it takes. */
int kh_conf_key_check(const struct kh_conf_key *k, struct json_object *v, char *err, size_t errlen);
/* v read as the key's type: 0, or -1 when it is not one (no message). */
int kh_conf_as_int(struct json_object *v, int64_t *out);
int kh_conf_as_bool(struct json_object *v, int *out);
/* docs/configuration.md: the table as Markdown, with its prose. */
void kh_conf_print_reference(FILE *out);

#endif
