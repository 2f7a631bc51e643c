// SPDX-License-Identifier: GPL-2.0
/*
 * web.c - `sonde serve --web-config FILE`: TLS and basic auth in the format
 * of Prometheus' exporter-toolkit web config, read with libyaml; passwords
 * checked with crypt(3) against their bcrypt hashes. See serve.h.
 */
#include "lib/serve/serve.h"
#include "lib/serve/serve_int.h"
#include "lib/serve/dynlib.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PEM_MAX_BYTES (256 * 1024)

void serve_web__free(struct serve_web *w)
{
	free(w->cert_pem);
	free(w->key_pem);
	for (int i = 0; i < w->nr_users; i++) {
		free(w->users[i].name);
		free(w->users[i].hash);
	}
	memset(w, 0, sizeof(*w));
}

/* a PEM file, relative to dir; 0 or -errno with err */
static int read_pem(char **out, const char *dir, const char *name, char *err, size_t errlen)
{
	char path[4096];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s%s%s", name[0] == '/' || !dir ? "" : dir, name[0] == '/' || !dir ? "" : "/", name);
	if (!(f = fopen(path, "r"))) {
		int rc = -errno;

		snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
		return rc;
	}
	*out = calloc(1, PEM_MAX_BYTES + 1);
	n = *out ? fread(*out, 1, PEM_MAX_BYTES, f) : 0;
	fclose(f);
	if (!*out)
		return -ENOMEM;
	if (!n || !strstr(*out, "-----BEGIN ")) {
		snprintf(err, errlen, "'%s' is not a PEM file", path);
		return -EINVAL;
	}
	return 0;
}

static const char *scalar_of(yaml_node_t *n)
{
	if (!n || n->type != YAML_SCALAR_NODE || strlen((const char *)n->data.scalar.value) != n->data.scalar.length)
		return NULL;
	return (const char *)n->data.scalar.value;
}

static int bad(yaml_node_t *n, char *err, size_t errlen, const char *what)
{
	if (n)
		snprintf(err, errlen, "line %lu, column %lu: %s", (unsigned long)n->start_mark.line + 1,
			 (unsigned long)n->start_mark.column + 1, what);
	else
		snprintf(err, errlen, "%s", what);
	return -EINVAL;
}

static int tls_section(struct serve_web *w, yaml_document_t *d, yaml_node_t *m, const char *dir, char *err, size_t errlen)
{
	const char *cert = NULL, *key = NULL;
	int rc;

	if (m->type != YAML_MAPPING_NODE)
		return bad(m, err, errlen, "tls_server_config is a mapping (cert_file, key_file)");
	for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
		yaml_node_t *k = dl_yaml_document_get_node(d, p->key), *v = dl_yaml_document_get_node(d, p->value);
		const char *ks = scalar_of(k), *vs = scalar_of(v);

		if (!ks || !vs)
			return bad(k, err, errlen, "tls_server_config takes names and values");
		if (!strcmp(ks, "cert_file"))
			cert = vs;
		else if (!strcmp(ks, "key_file"))
			key = vs;
		else
			return bad(k, err, errlen, "unknown key in tls_server_config (cert_file, key_file)");
	}
	if (!cert || !key)
		return bad(m, err, errlen, "tls_server_config needs cert_file and key_file");
	rc = read_pem(&w->cert_pem, dir, cert, err, errlen);
	return rc ? rc : read_pem(&w->key_pem, dir, key, err, errlen);
}

static int users_section(struct serve_web *w, yaml_document_t *d, yaml_node_t *m, char *err, size_t errlen)
{
	if (m->type != YAML_MAPPING_NODE)
		return bad(m, err, errlen, "basic_auth_users is a mapping of names to bcrypt hashes");
	for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
		yaml_node_t *k = dl_yaml_document_get_node(d, p->key), *v = dl_yaml_document_get_node(d, p->value);
		const char *ks = scalar_of(k), *vs = scalar_of(v);

		if (!ks || !vs || !*ks || strchr(ks, ':'))
			return bad(k, err, errlen, "a user is NAME: HASH (a name without ':')");
		if (strncmp(vs, "$2", 2))
			return bad(v, err, errlen, "the password must be a bcrypt hash ($2y$...), as exporter-toolkit takes it");
		if (w->nr_users >= SERVE_MAX_USERS)
			return bad(k, err, errlen, "too many users");
		w->users[w->nr_users].name = strdup(ks);
		w->users[w->nr_users].hash = strdup(vs);
		if (!w->users[w->nr_users++].hash || !w->users[w->nr_users - 1].name)
			return -ENOMEM;
	}
	return 0;
}

int serve_web__parse(struct serve_web *w, const char *text, size_t len, const char *dir, char *err, size_t errlen)
{
	yaml_document_t doc;
	yaml_node_t *root;
	int rc = 0;

	memset(w, 0, sizeof(*w));
	if ((rc = serve__yaml_load(&doc, text, len, err, errlen)))
		return rc;
	root = dl_yaml_document_get_root_node(&doc);
	if (root && root->type == YAML_MAPPING_NODE) {
		for (yaml_node_pair_t *p = root->data.mapping.pairs.start; !rc && p < root->data.mapping.pairs.top; p++) {
			yaml_node_t *k = dl_yaml_document_get_node(&doc, p->key), *v = dl_yaml_document_get_node(&doc, p->value);
			const char *ks = scalar_of(k);

			if (ks && !strcmp(ks, "tls_server_config"))
				rc = tls_section(w, &doc, v, dir, err, errlen);
			else if (ks && !strcmp(ks, "basic_auth_users"))
				rc = users_section(w, &doc, v, err, errlen);
			else
				rc = bad(k, err, errlen, "unknown key (tls_server_config, basic_auth_users)");
		}
	} else if (root) {
		rc = bad(root, err, errlen, "the web config is a mapping (tls_server_config, basic_auth_users)");
	}
	dl_yaml_document_delete(&doc);
	if (rc)
		serve_web__free(w);
	return rc;
}

int serve_web__load(struct serve_web *w, const char *path, char *err, size_t errlen)
{
	char *buf, dir[4096], tmp[512];
	const char *slash = strrchr(path, '/');
	FILE *f;
	size_t n;
	int rc;

	if ((rc = serve__libs_load(SERVE_LIB_YAML, err, errlen)))	/* said alone, not as the file's fault */
		return rc;
	buf = calloc(1, 65537);
	f = fopen(path, "r");
	if (!f || !buf) {
		rc = f ? -ENOMEM : -errno;
		snprintf(err, errlen, "cannot open '%s': %s", path, strerror(-rc));
		if (f)
			fclose(f);
		free(buf);
		return rc;
	}
	n = fread(buf, 1, 65536, f);
	fclose(f);
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
	rc = serve_web__parse(w, buf, n, dir, err, errlen);
	if (rc) {
		snprintf(tmp, sizeof(tmp), "%s: %s", path, err);
		snprintf(err, errlen, "%s", tmp);
	} else if (w->nr_users && (rc = serve__libs_load(SERVE_LIB_CRYPT, err, errlen))) {
		serve_web__free(w);	/* libcrypt checks the hashes: missing, it is said now, not at a request */
	}
	free(buf);
	return rc;
}

bool serve_web__check(const struct serve_web *w, const char *user, const char *pass)
{
	struct crypt_data cd;
	const char *out;
	unsigned char diff = 0;
	char err[256];
	size_t n;

	if (serve__libs_load(SERVE_LIB_CRYPT, err, sizeof(err)))
		return false;

	for (int i = 0; user && pass && i < w->nr_users; i++) {
		if (strcmp(w->users[i].name, user))
			continue;
		memset(&cd, 0, sizeof(cd));
		out = dl_crypt_r(pass, w->users[i].hash, &cd);
		n = strlen(w->users[i].hash);
		if (!out || strlen(out) != n)
			return false;
		for (size_t k = 0; k < n; k++)
			diff |= (unsigned char)(out[k] ^ w->users[i].hash[k]);
		return !diff;
	}
	return false;
}
