/* SPDX-License-Identifier: GPL-2.0 */
/*
 * serve.h - the engine of `sonde serve`: an HTTP agent (libmicrohttpd) that
 * Prometheus and pprof scrapers read. Its config file (YAML, libyaml), its
 * query values, its profiles (the sampler of record/top folded into a stack
 * tree, written by lib/export's pprof writer; off-CPU from lib/bpf's offcpu
 * engine), its /metrics text and the server itself.
 *
 * Ownership: a serve_config owns its strings (serve_config__free); a server
 * owns its daemon, threads, counters and the last profile (serve__stop frees
 * them); buffers handed out (struct serve_buf) are the caller's to free().
 */
#ifndef SONDE_SERVE_H
#define SONDE_SERVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define SERVE_DEFAULT_LISTEN "127.0.0.1:9977"
#define SERVE_MAX_SECONDS 300		/* the longest profile a request may ask for */
#define SERVE_MAX_EVENTS 64
#define SERVE_DEFAULT_LABEL_LIMIT 1000

/*
 * The libraries serve uses are loaded when it first needs them, not by the
 * dynamic loader at start (every other command would pay for mapping them):
 * libmicrohttpd for HTTP (with gnutls for TLS), libyaml for the configs,
 * libcrypt for basic auth's password hashes.
 */
#define SERVE_LIB_HTTP 1u	/* libmicrohttpd.so.12 (Debian's libmicrohttpd12) */
#define SERVE_LIB_YAML 2u	/* libyaml-0.so.2 (libyaml-0-2) */
#define SERVE_LIB_CRYPT 4u	/* libcrypt.so.1 (libcrypt1) */
/* load the libraries of the mask libs not loaded yet (thread-safe; never unloaded);
 * 0 or -ELIBACC with one line in err naming the library and its Debian package */
int serve__libs_load(unsigned libs, char *err, size_t errlen);
/* once loaded: libmicrohttpd's version ("0.9.75"), libyaml's, whether libmicrohttpd has TLS */
const char *serve__http_version(void);
const char *serve__yaml_version(void);
bool serve__http_tls(void);

/* one event counted for /metrics, as `sonde stat -e` counts it, system-wide */
struct serve_event {
	char *name;		/* "syscalls:sys_enter_write" */
	char *filter;		/* a tracepoint filter ("comm == \"syscalls\""), or NULL */
};

#define SERVE_MAX_PROBES 16
#define SERVE_MAX_LABELED 32		/* maps of a probe given label names */
#define SERVE_MAX_KEY_PARTS 8

/* label names for the parts of a map's key (else key, or key1, key2, ...) */
struct serve_labels {
	char *map;			/* without its '@' ("bytes"; "" for @) */
	char *names[SERVE_MAX_KEY_PARTS];
	int n;
};

/* a `sonde probe` program whose maps /metrics exports, as ebpf_exporter exports BPF maps */
struct serve_probe {
	char *name;			/* [a-zA-Z_][a-zA-Z0-9_]*: its metrics are sonde_probe_NAME_MAP */
	char *program;			/* program: its text, or NULL */
	char *file;			/* file: a .bt file to read (cmd/serve.c reads it), or NULL */
	struct serve_labels labels[SERVE_MAX_LABELED];
	int nr_labels;
};

/* one entry of a probe program's map, as the caller's reader gives it (cmd/serve.c, lang's live__each) */
enum serve_mtype { SERVE_COUNTER, SERVE_GAUGE, SERVE_HISTOGRAM };
struct serve_mentry {
	const char *map;		/* "@calls", "@" */
	enum serve_mtype type;
	int nparts;			/* the key's parts as text: a label each */
	char *const *parts;
	double value;			/* counter, gauge */
	int nb;				/* histogram: counts[i] values <= le[i], not cumulative */
	const uint64_t *counts;
	const long long *le;
	bool last_unbounded;		/* the last bucket has no bound: it is le="+Inf"'s alone */
};
typedef int (*serve_mentry_fn)(void *ctx, const struct serve_mentry *e);

/* the running probe programs, read at each scrape (the caller's; NULL each: no probes) */
struct serve_probe_src {
	int (*each)(void *ctx, int probe, serve_mentry_fn fn, void *fctx);	/* 0 or -errno */
	uint64_t (*output_lines)(void *ctx, int probe);	/* lines printed, not served */
	void *ctx;
};

struct serve_config {
	char *listen;			/* "HOST:PORT", NULL: the default */
	double continuous;		/* seconds per window, 0: profile on request only */
	unsigned freq;			/* samples per second (0: 99, or 19 when continuous) */
	unsigned label_limit;		/* series per metric family, then dropped and counted */
	unsigned max_profiles;		/* profiling sessions at once (0: 1) */
	struct serve_event events[SERVE_MAX_EVENTS];
	int nr_events;
	struct serve_probe probes[SERVE_MAX_PROBES];
	int nr_probes;
	struct serve_probe_src src;	/* set by the caller before serve__start, when there are probes */
};

/*
 * Parse YAML text (len bytes) into c (zeroed first); the schema is
 * docs/serve.md's. 0, or -EINVAL with one line in err (line:column, what was
 * wrong). On error c holds nothing to free.
 */
int serve_config__parse(struct serve_config *c, const char *text, size_t len, char *err, size_t errlen);
/* read and parse a file; 0 or -errno with err filled */
int serve_config__load(struct serve_config *c, const char *path, char *err, size_t errlen);
void serve_config__free(struct serve_config *c);
void serve_probe__free(struct serve_probe *p);
/* a deep copy; 0 or -ENOMEM (dst then holds nothing) */
int serve_probe__copy(struct serve_probe *dst, const struct serve_probe *src);

/* "10s", "500ms", "2m", "3": seconds; 0 or -EINVAL */
int serve__parse_duration(const char *s, double *secs);
/*
 * "HOST:PORT" (IPv4 dotted or "localhost", ":PORT" for every address),
 * "[IPV6]:PORT" ("[::1]:9977", "[::]:9977"): host without the brackets; 0 or -EINVAL
 */
int serve__parse_listen(const char *s, char *host, size_t hostlen, uint16_t *port);

/* what a profile request asks for: ?seconds=N&pid=P */
struct serve_query {
	unsigned seconds;	/* 1..SERVE_MAX_SECONDS, 30 when absent (Go's default) */
	pid_t pid;		/* 0: the whole machine */
};
/*
 * Check the values of a request's query (either may be NULL: absent) into q.
 * 0, or -EINVAL with one line in err (the request then gets 400).
 */
int serve_query__parse(struct serve_query *q, const char *seconds, const char *pid, char *err, size_t errlen);

/* bytes made for an answer: malloc'd, the caller frees data */
struct serve_buf {
	char *data;
	size_t len;
};

/* a finished profile: its pprof bytes and the SVG flame graph of the same stacks */
struct serve_profile {
	struct serve_buf pprof;
	struct serve_buf svg;
	uint64_t samples;
	double start, end;	/* CLOCK_REALTIME seconds of the window */
};
void serve_profile__free(struct serve_profile *p);

enum serve_kind { SERVE_CPU, SERVE_OFFCPU };

/*
 * Symbols kept from one CPU window to the next (continuous mode): the ELF
 * files and kallsyms read once, the processes' maps kept up to date by the
 * kernel's mmap, exec and exit records. Owns its symbolizer.
 */
struct serve_symcache;
struct serve_symcache *serve_symcache__new(void);
void serve_symcache__free(struct serve_symcache *c);

/*
 * Profile for q->seconds: the CPU at freq Hz (kernel and user stacks, frame
 * pointers), or the time blocked off CPU (microseconds). cache (may be NULL)
 * keeps the CPU profile's symbols for the next one. *stop set by another
 * thread ends the window early. 0 or -errno with one line in err.
 */
int serve__profile(enum serve_kind kind, const struct serve_query *q, unsigned freq, struct serve_symcache *cache,
		   volatile bool *stop, struct serve_profile *out, char *err, size_t errlen);

/* Prometheus' text: "a\\b\"c\n" escaped into a label value */
void serve__label_escape(char *dst, size_t len, const char *src);

#define SERVE_MAX_USERS 32

/*
 * --web-config: TLS and basic auth, in the file format of Prometheus'
 * exporter-toolkit (tls_server_config: cert_file, key_file;
 * basic_auth_users: NAME: bcrypt hash). Files are read at load, relative to
 * the web config's directory.
 */
struct serve_web {
	char *cert_pem, *key_pem;	/* NULL: plain HTTP */
	struct {
		char *name, *hash;
	} users[SERVE_MAX_USERS];
	int nr_users;			/* 0: no authentication */
};
/* parse text (len bytes; dir: where relative file names are) into w; 0 or -errno with err */
int serve_web__parse(struct serve_web *w, const char *text, size_t len, const char *dir, char *err, size_t errlen);
int serve_web__load(struct serve_web *w, const char *path, char *err, size_t errlen);
void serve_web__free(struct serve_web *w);
/* does pass match user's hash? (crypt(3): bcrypt $2b$/$2y$, and the other schemes libxcrypt takes) */
bool serve_web__check(const struct serve_web *w, const char *user, const char *pass);

struct server;

/*
 * Start listening on c's address (listen overrides it when not NULL) with
 * c's events opened for counting, and web's TLS and users (web may be NULL;
 * it is copied). 0 or -errno with one line in err.
 */
int serve__start(struct server **out, const struct serve_config *c, const char *listen,
		 const struct serve_web *web, char *err, size_t errlen);
/* the port bound (useful with port 0) */
uint16_t serve__port(const struct server *s);
/* stop taking requests, end profiles in flight, detach everything, free */
void serve__stop(struct server *s);

#endif
