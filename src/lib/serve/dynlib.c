// SPDX-License-Identifier: GPL-2.0
/*
 * dynlib.c - libmicrohttpd, libyaml and libcrypt opened with dlopen() when
 * `sonde serve` first needs each, their functions looked up into the dl_*
 * pointers of dynlib.h. A library that cannot be opened, or lacks one of
 * the functions, is one line naming it and the Debian package that has it.
 * See serve.h (serve__libs_load).
 */
#include "lib/serve/serve.h"
#include "lib/serve/dynlib.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define DYNLIB_DEFINE(name) typeof(name) *dl_##name;
DYNLIB_HTTP_FUNCTIONS(DYNLIB_DEFINE)
DYNLIB_YAML_FUNCTIONS(DYNLIB_DEFINE)
DYNLIB_CRYPT_FUNCTIONS(DYNLIB_DEFINE)

struct dynlib_fn {
	const char *name;
	void *dst;		/* the dl_NAME pointer to fill */
};

#define DYNLIB_ENTRY(name) { #name, &dl_##name },
static const struct dynlib_fn http_fns[] = { DYNLIB_HTTP_FUNCTIONS(DYNLIB_ENTRY) { NULL, NULL } };
static const struct dynlib_fn yaml_fns[] = { DYNLIB_YAML_FUNCTIONS(DYNLIB_ENTRY) { NULL, NULL } };
static const struct dynlib_fn crypt_fns[] = { DYNLIB_CRYPT_FUNCTIONS(DYNLIB_ENTRY) { NULL, NULL } };

static const struct dynlib {
	unsigned bit;
	const char *soname;	/* the library's SONAME, as the -dev package's link named it */
	const char *package;	/* Debian's package of it */
	const char *use;	/* what serve needs it for */
	const struct dynlib_fn *fns;
} libs[] = {
	{ SERVE_LIB_HTTP, "libmicrohttpd.so.12", "libmicrohttpd12", "HTTP", http_fns },
	{ SERVE_LIB_YAML, "libyaml-0.so.2", "libyaml-0-2", "YAML configs", yaml_fns },
	{ SERVE_LIB_CRYPT, "libcrypt.so.1", "libcrypt1", "basic auth", crypt_fns },
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned loaded;		/* the SERVE_LIB_* bits whose pointers are all filled */

/* dlerror()'s text without the leading "SONAME: " it repeats (a path, when it names one, stays) */
static const char *why(const char *soname)
{
	const char *e = dlerror(), *rest;

	if (!e)
		return "unknown error";
	rest = !strncmp(e, soname, strlen(soname)) ? e + strlen(soname) : NULL;
	return rest && !strncmp(rest, ": ", 2) ? rest + 2 : e;
}

/* open l and fill its pointers, all or none; 0 or -ELIBACC with err */
static int load(const struct dynlib *l, char *err, size_t errlen)
{
	void *h = dlopen(l->soname, RTLD_NOW | RTLD_LOCAL), *sym;
	const struct dynlib_fn *f = l->fns;

	/* dlsym gives a void *; POSIX makes it convertible to the function's pointer type */
	for (; h && f->name && (sym = dlsym(h, f->name)); f++)
		memcpy(f->dst, &sym, sizeof(sym));
	if (h && !f->name)
		return 0;	/* never closed: pointers into it live as long as the process */
	snprintf(err, errlen, "cannot load '%s' (serve's %s): %s: install Debian's package %s", l->soname, l->use,
		 why(l->soname), l->package);
	for (f = l->fns; f->name; f++)	/* none left pointing into what is closed */
		memset(f->dst, 0, sizeof(sym));
	if (h)
		dlclose(h);
	return -ELIBACC;
}

int serve__libs_load(unsigned want, char *err, size_t errlen)
{
	int rc = 0;

	pthread_mutex_lock(&lock);
	for (size_t i = 0; !rc && i < sizeof(libs) / sizeof(libs[0]); i++) {
		if (!(want & libs[i].bit) || (loaded & libs[i].bit))
			continue;
		if (!(rc = load(&libs[i], err, errlen)))
			loaded |= libs[i].bit;
	}
	pthread_mutex_unlock(&lock);
	return rc;
}

const char *serve__http_version(void)
{
	return dl_MHD_get_version ? dl_MHD_get_version() : NULL;
}

const char *serve__yaml_version(void)
{
	return dl_yaml_get_version_string ? dl_yaml_get_version_string() : NULL;
}

bool serve__http_tls(void)
{
	return dl_MHD_is_feature_supported && dl_MHD_is_feature_supported(MHD_FEATURE_TLS) == MHD_YES;
}
