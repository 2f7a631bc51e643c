// SPDX-License-Identifier: GPL-2.0
/*
 * http.c - `sonde serve`'s server: libmicrohttpd parses every request (one
 * thread per connection, bounded in number, idle connections timed out,
 * headers bounded by its memory limit); this file routes them. Profiles run
 * in at most max_profiles sessions at once: a request asking for what a
 * running session is already making waits for it and shares its answer,
 * others are refused with 503 and Retry-After. See serve.h.
 */
#include "lib/serve/serve.h"
#include "lib/serve/serve_int.h"
#include "lib/serve/dynlib.h"
#include "lib/export/export.h"

#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SLOTS 64
#define MAX_WAITERS 128		/* requests waiting on one session */
#define MAX_CONNECTIONS 256
#define IDLE_TIMEOUT 15		/* seconds a connection may stay silent (slow clients) */
#define REQUEST_MEMORY (64 * 1024)	/* a request's headers; larger ones get 431 */

struct slot {
	bool busy;
	enum serve_kind kind;
	struct serve_query q;
	unsigned gen;
	int waiters;
	int rc;
	char err[256];
	struct serve_profile result;
};

struct server {
	struct MHD_Daemon *d;
	struct metrics *m;
	pthread_mutex_t lock;
	pthread_cond_t done;
	struct serve_stats st;
	volatile bool stop;
	struct slot slots[MAX_SLOTS];
	unsigned max_profiles;
	unsigned freq;
	double continuous;
	pthread_t cont;
	bool cont_running;
	struct serve_web web;		/* a copy of --web-config's */
	struct serve_profile last;	/* the last CPU window: /flame.svg, and /debug/pprof/profile when continuous */
	bool have_last;
	uint16_t port;
};

static int memdup_buf(struct serve_buf *dst, const struct serve_buf *src)
{
	dst->len = src->len;
	dst->data = malloc(src->len ? src->len : 1);
	if (!dst->data)
		return -ENOMEM;
	memcpy(dst->data, src->data, src->len);
	return 0;
}

/* keep p as the last CPU window (the server takes p's buffers) */
static void keep_last(struct server *s, struct serve_profile *p)
{
	serve_profile__free(&s->last);
	s->last = *p;
	s->have_last = true;
	memset(p, 0, sizeof(*p));
}

/*
 * The profile q asks for, shared with a session already making it: 0 with out
 * filled (the caller frees it), -EBUSY when every session is taken, another
 * -errno with err.
 */
static int profile(struct server *s, enum serve_kind kind, const struct serve_query *q, struct serve_buf *out,
		   char *err, size_t errlen)
{
	struct serve_profile p;
	struct slot *sl = NULL;
	unsigned busy = 0, gen;
	int rc;

	pthread_mutex_lock(&s->lock);
	for (int i = 0; i < MAX_SLOTS; i++) {
		struct slot *x = &s->slots[i];

		busy += x->busy;
		if (x->busy && x->kind == kind && x->q.seconds == q->seconds && x->q.pid == q->pid && !sl)
			sl = x;
	}
	if (sl && sl->waiters < MAX_WAITERS) {
		/* join: wait for the session running, take a copy of its answer */
		gen = sl->gen;
		sl->waiters++;
		s->st.shared++;
		while (sl->gen == gen)
			pthread_cond_wait(&s->done, &s->lock);
		rc = sl->rc;
		if (!rc)
			rc = memdup_buf(out, &sl->result.pprof);
		else
			snprintf(err, errlen, "%s", sl->err);
		sl->waiters--;
		pthread_mutex_unlock(&s->lock);
		return rc;
	}
	sl = NULL;
	for (int i = 0; i < MAX_SLOTS && busy < s->max_profiles && !sl; i++)
		if (!s->slots[i].busy && !s->slots[i].waiters)
			sl = &s->slots[i];
	if (!sl) {
		s->st.refused++;
		pthread_mutex_unlock(&s->lock);
		return -EBUSY;
	}
	sl->busy = true;
	sl->kind = kind;
	sl->q = *q;
	serve_profile__free(&sl->result);
	s->st.profiles++;
	pthread_mutex_unlock(&s->lock);

	rc = serve__profile(kind, q, s->freq, NULL, &s->stop, &p, err, errlen);

	pthread_mutex_lock(&s->lock);
	if (!rc)
		rc = memdup_buf(out, &p.pprof);
	if (!rc && (rc = memdup_buf(&sl->result.pprof, &p.pprof))) {
		free(out->data);
		out->data = NULL;
	}
	if (rc == -ENOMEM && !err[0])
		snprintf(err, errlen, "out of memory");
	if (!rc && kind == SERVE_CPU && !q->pid)
		keep_last(s, &p);
	sl->rc = rc;
	snprintf(sl->err, sizeof(sl->err), "%s", rc ? err : "");
	serve_profile__free(&p);
	sl->busy = false;
	sl->gen++;
	pthread_cond_broadcast(&s->done);
	pthread_mutex_unlock(&s->lock);
	return rc;
}

/* --continuous: one window after another, the last kept */
static void *continuous(void *arg)
{
	struct server *s = arg;
	struct serve_query q = { .seconds = (unsigned)ceil(s->continuous) };
	struct serve_symcache *cache = serve_symcache__new();
	char err[256];

	while (!s->stop) {
		struct serve_profile p;

		if (serve__profile(SERVE_CPU, &q, s->freq, cache, &s->stop, &p, err, sizeof(err))) {
			/* try again later: a window that failed (no memory) leaves the last one */
			for (int i = 0; i < 10 && !s->stop; i++)
				usleep(100 * 1000);
			continue;
		}
		if (s->stop) {
			serve_profile__free(&p);
			break;
		}
		pthread_mutex_lock(&s->lock);
		keep_last(s, &p);
		pthread_mutex_unlock(&s->lock);
	}
	serve_symcache__free(cache);
	return NULL;
}

static enum MHD_Result answer(struct MHD_Connection *c, unsigned status, const char *type, char *data, size_t len,
			      const char *disposition)
{
	struct MHD_Response *r = dl_MHD_create_response_from_buffer(len, data, MHD_RESPMEM_MUST_FREE);
	enum MHD_Result ret;

	if (!r) {
		free(data);
		return MHD_NO;
	}
	dl_MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (disposition)
		dl_MHD_add_response_header(r, "Content-Disposition", disposition);
	if (status == MHD_HTTP_SERVICE_UNAVAILABLE)
		dl_MHD_add_response_header(r, "Retry-After", "5");
	dl_MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	ret = dl_MHD_queue_response(c, status, r);
	dl_MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result text(struct MHD_Connection *c, unsigned status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static enum MHD_Result text(struct MHD_Connection *c, unsigned status, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		return MHD_NO;
	return answer(c, status, "text/plain; charset=utf-8", s, (size_t)n, NULL);
}

static const char index_page[] =
	"<!DOCTYPE html>\n<html><head><title>/debug/pprof/</title></head><body>\n"
	"<p>/debug/pprof/ of sonde serve</p>\n<table>\n"
	"<tr><td><a href=\"profile?seconds=30\">profile</a></td><td>CPU profile of the whole machine "
	"(kernel and user stacks); ?seconds=N, ?pid=PID</td></tr>\n"
	"<tr><td><a href=\"offcpu?seconds=30\">offcpu</a></td><td>time blocked off CPU, in microseconds, "
	"by stack; ?seconds=N, ?pid=PID</td></tr>\n"
	"</table></body></html>\n";

static enum MHD_Result root_page(struct server *s, struct MHD_Connection *c)
{
	int refresh = s->continuous > 5 ? (int)ceil(s->continuous) : s->continuous > 0 ? 5 : 10;	/* reloads at most every 5 s */
	char *page;
	int n;

	pthread_mutex_lock(&s->lock);
	bool have = s->have_last;
	double start = s->last.start, end = s->last.end;
	pthread_mutex_unlock(&s->lock);
	n = asprintf(&page,
		     "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><meta http-equiv=\"refresh\" content=\"%d\">"
		     "<title>sonde serve</title></head><body style=\"margin:0\">\n"
		     "<p style=\"font-family:sans-serif;margin:4px\">sonde serve: %s (<a href=\"/metrics\">/metrics</a>, "
		     "<a href=\"/debug/pprof/\">/debug/pprof/</a>)</p>\n%s</body></html>\n",
		     refresh, have ? "CPU flame graph of the last window" : "no profile yet: run with --continuous, "
		     "or fetch /debug/pprof/profile",
		     have ? "<object id=\"flame\" data=\"/flame.svg\" type=\"image/svg+xml\" width=\"100%\"></object>\n" : "");
	(void)start;
	(void)end;
	if (n < 0)
		return MHD_NO;
	return answer(c, MHD_HTTP_OK, "text/html; charset=utf-8", page, (size_t)n, NULL);
}

static enum MHD_Result flame_svg(struct server *s, struct MHD_Connection *c)
{
	struct serve_buf b = { 0 };
	int rc = -ENOENT;

	pthread_mutex_lock(&s->lock);
	if (s->have_last)
		rc = memdup_buf(&b, &s->last.svg);
	pthread_mutex_unlock(&s->lock);
	if (rc == -ENOENT)
		return text(c, MHD_HTTP_NOT_FOUND, "no profile yet\n");
	if (rc)
		return MHD_NO;
	return answer(c, MHD_HTTP_OK, "image/svg+xml", b.data, b.len, NULL);
}

static enum MHD_Result pprof(struct server *s, struct MHD_Connection *c, enum serve_kind kind)
{
	const char *sec = dl_MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "seconds");
	const char *pid = dl_MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "pid");
	struct serve_query q;
	struct serve_buf b = { 0 };
	char err[512];
	int rc;

	if (serve_query__parse(&q, sec, pid, err, sizeof(err))) {
		pthread_mutex_lock(&s->lock);
		s->st.bad_requests++;
		pthread_mutex_unlock(&s->lock);
		return text(c, MHD_HTTP_BAD_REQUEST, "%s\n", err);
	}
	if (kind == SERVE_CPU && !q.pid && s->continuous > 0) {
		rc = -ENOENT;
		pthread_mutex_lock(&s->lock);
		if (s->have_last)
			rc = memdup_buf(&b, &s->last.pprof);
		pthread_mutex_unlock(&s->lock);
		if (!rc)
			return answer(c, MHD_HTTP_OK, "application/octet-stream", b.data, b.len,
				      "attachment; filename=\"profile\"");
		/* the first window is not done: make one now */
	}
	rc = profile(s, kind, &q, &b, err, sizeof(err));
	if (rc == -EBUSY)
		return text(c, MHD_HTTP_SERVICE_UNAVAILABLE, "every profiling session is taken (%u): try again later\n",
			    s->max_profiles);
	if (rc == -ESRCH || rc == -EINVAL)
		return text(c, MHD_HTTP_BAD_REQUEST, "%s\n", err);
	if (rc)
		return text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "%s\n", err[0] ? err : strerror(-rc));
	return answer(c, MHD_HTTP_OK, "application/octet-stream", b.data, b.len,
		      kind == SERVE_CPU ? "attachment; filename=\"profile\"" : "attachment; filename=\"offcpu\"");
}

static enum MHD_Result metrics(struct server *s, struct MHD_Connection *c)
{
	const char *accept = dl_MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);
	bool om = accept && strstr(accept, "application/openmetrics-text");
	struct serve_stats st;
	struct serve_buf b = { 0 };
	const char *enc = dl_MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT_ENCODING);
	struct serve_buf z = { 0 };
	struct MHD_Response *r;
	enum MHD_Result ret;
	FILE *f;

	pthread_mutex_lock(&s->lock);
	st = s->st;
	pthread_mutex_unlock(&s->lock);
	if (metrics__render(s->m, &st, om, &b))
		return text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
	/* Prometheus asks for gzip: a fifth of the bytes */
	if (enc && strstr(enc, "gzip") && (f = open_memstream(&z.data, &z.len))) {
		int rc = export__gzip(f, b.data, b.len);

		if (fclose(f) || rc) {
			free(z.data);
			z.data = NULL;
		} else {
			free(b.data);
			b = z;
		}
	}
	r = dl_MHD_create_response_from_buffer(b.len, b.data, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(b.data);
		return MHD_NO;
	}
	dl_MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
				om ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
				   : "text/plain; version=0.0.4; charset=utf-8");
	if (z.data)
		dl_MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_ENCODING, "gzip");
	ret = dl_MHD_queue_response(c, MHD_HTTP_OK, r);
	dl_MHD_destroy_response(r);
	return ret;
}

/* basic auth: the user and password of the request match a user's hash */
static bool authorized(struct server *s, struct MHD_Connection *c)
{
	char *pass = NULL, *user = dl_MHD_basic_auth_get_username_password(c, &pass);
	bool ok = serve_web__check(&s->web, user, pass);

	if (pass)
		explicit_bzero(pass, strlen(pass));
	dl_MHD_free(user);
	dl_MHD_free(pass);
	return ok;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
				  const char *version, const char *upload, size_t *upload_size, void **con_cls)
{
	struct server *s = cls;

	(void)version;
	(void)upload;
	(void)con_cls;
	pthread_mutex_lock(&s->lock);
	s->st.requests++;
	pthread_mutex_unlock(&s->lock);
	if (s->web.nr_users && !authorized(s, c)) {
		struct MHD_Response *r = dl_MHD_create_response_from_buffer(14, (void *)"unauthorized\n\n",
									 MHD_RESPMEM_PERSISTENT);
		enum MHD_Result ret = r ? dl_MHD_queue_basic_auth_fail_response(c, "sonde", r) : MHD_NO;

		if (r)
			dl_MHD_destroy_response(r);
		return ret;
	}
	if (strcmp(method, "GET") && strcmp(method, "HEAD"))
		return text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET and HEAD\n");
	if (*upload_size)
		return text(c, MHD_HTTP_BAD_REQUEST, "a GET takes no body\n");
	if (!strcmp(url, "/metrics"))
		return metrics(s, c);
	if (!strcmp(url, "/debug/pprof/profile"))
		return pprof(s, c, SERVE_CPU);
	if (!strcmp(url, "/debug/pprof/offcpu"))
		return pprof(s, c, SERVE_OFFCPU);
	if (!strcmp(url, "/debug/pprof/") || !strcmp(url, "/debug/pprof"))
		return answer(c, MHD_HTTP_OK, "text/html; charset=utf-8", strdup(index_page), strlen(index_page), NULL);
	if (!strcmp(url, "/"))
		return root_page(s, c);
	if (!strcmp(url, "/flame.svg"))
		return flame_svg(s, c);
	return text(c, MHD_HTTP_NOT_FOUND, "not found: /, /metrics, /debug/pprof/, /debug/pprof/profile, "
		    "/debug/pprof/offcpu\n");
}

/* libmicrohttpd's own messages: the engine prints nothing */
static void quiet_log(void *cls, const char *fmt, va_list ap)
{
	(void)cls;
	(void)fmt;
	(void)ap;
}

/* listen's address into ss (IPv4, or IPv6 in brackets: *v6 set); 0 or -EINVAL with err */
static int bind_addr(struct sockaddr_storage *ss, bool *v6, const char *listen, char *err, size_t errlen)
{
	struct sockaddr_in *sa = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *sa6 = (struct sockaddr_in6 *)ss;
	char host[256];
	uint16_t port;

	memset(ss, 0, sizeof(*ss));
	*v6 = false;
	if (serve__parse_listen(listen, host, sizeof(host), &port)) {
		snprintf(err, errlen, "--listen '%s': not HOST:PORT (127.0.0.1:9977, :9977, [::1]:9977)", listen);
		return -EINVAL;
	}
	if (listen[0] == '[') {
		*v6 = true;
		sa6->sin6_family = AF_INET6;
		sa6->sin6_port = htons(port);
		if (inet_pton(AF_INET6, host, &sa6->sin6_addr) != 1) {
			snprintf(err, errlen, "--listen '%s': '%s' is not an IPv6 address", listen, host);
			return -EINVAL;
		}
		return 0;
	}
	sa->sin_family = AF_INET;
	sa->sin_port = htons(port);
	if (!host[0])
		sa->sin_addr.s_addr = htonl(INADDR_ANY);
	else if (!strcmp(host, "localhost"))
		sa->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	else if (inet_pton(AF_INET, host, &sa->sin_addr) != 1) {
		snprintf(err, errlen, "--listen '%s': '%s' is not an IPv4 address", listen, host);
		return -EINVAL;
	}
	return 0;
}

/* copy w into s->web; 0 or -ENOMEM */
static int copy_web(struct serve_web *dst, const struct serve_web *w)
{
	if (!w)
		return 0;
	if (w->cert_pem && !(dst->cert_pem = strdup(w->cert_pem)))
		return -ENOMEM;
	if (w->key_pem && !(dst->key_pem = strdup(w->key_pem)))
		return -ENOMEM;
	for (int i = 0; i < w->nr_users; i++) {
		dst->users[i].name = strdup(w->users[i].name);
		dst->users[i].hash = strdup(w->users[i].hash);
		dst->nr_users++;
		if (!dst->users[i].name || !dst->users[i].hash)
			return -ENOMEM;
	}
	return 0;
}

static struct MHD_Daemon *start_daemon(struct server *s, const struct sockaddr_storage *sa, bool v6)
{
	unsigned flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG |
			 (v6 ? MHD_USE_IPv6 : 0);
	struct MHD_OptionItem o[12];
	int n = 0;

	o[n++] = (struct MHD_OptionItem){ MHD_OPTION_SOCK_ADDR, 0, (void *)sa };
	o[n++] = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_LIMIT, MAX_CONNECTIONS, NULL };
	o[n++] = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_TIMEOUT, IDLE_TIMEOUT, NULL };
	o[n++] = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_MEMORY_LIMIT, REQUEST_MEMORY, NULL };
	o[n++] = (struct MHD_OptionItem){ MHD_OPTION_THREAD_STACK_SIZE, 512 * 1024, NULL };
	o[n++] = (struct MHD_OptionItem){ MHD_OPTION_EXTERNAL_LOGGER, (intptr_t)quiet_log, NULL };
	if (s->web.cert_pem) {
		flags |= MHD_USE_TLS;
		o[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_KEY, 0, s->web.key_pem };
		o[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_CERT, 0, s->web.cert_pem };
	}
	o[n++] = (struct MHD_OptionItem){ MHD_OPTION_END, 0, NULL };
	return dl_MHD_start_daemon(flags, 0, NULL, NULL, on_request, s, MHD_OPTION_ARRAY, o, MHD_OPTION_END);
}

int serve__start(struct server **out, const struct serve_config *c, const char *listen,
		 const struct serve_web *web, char *err, size_t errlen)
{
	struct server *s;
	struct sockaddr_storage sa;
	bool v6;
	const union MHD_DaemonInfo *info;
	int rc;

	if ((rc = serve__libs_load(SERVE_LIB_HTTP, err, errlen)))
		return rc;
	if (web && web->cert_pem && !serve__http_tls()) {
		snprintf(err, errlen, "cannot serve HTTPS: this libmicrohttpd was built without TLS (gnutls)");
		return -ENOTSUP;
	}
	if (!(s = calloc(1, sizeof(*s))))
		return -ENOMEM;
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->done, NULL);
	s->max_profiles = c->max_profiles ? c->max_profiles : 1;
	s->continuous = c->continuous;
	s->freq = c->freq ? c->freq : c->continuous > 0 ? 19 : 99;
	if (!listen)
		listen = c->listen ? c->listen : SERVE_DEFAULT_LISTEN;
	rc = bind_addr(&sa, &v6, listen, err, errlen);
	if (!rc && (rc = copy_web(&s->web, web)))
		snprintf(err, errlen, "out of memory");
	if (!rc)
		rc = metrics__new(&s->m, c, err, errlen);
	if (!rc && !(s->d = start_daemon(s, &sa, v6))) {
		rc = -EADDRINUSE;
		snprintf(err, errlen, "cannot listen on %s: the address is taken or not this machine's%s", listen,
			 s->web.cert_pem ? ", or the TLS key and certificate do not go together" : "");
	}
	if (!rc && (info = dl_MHD_get_daemon_info(s->d, MHD_DAEMON_INFO_BIND_PORT)))
		s->port = info->port;
	if (!rc && s->continuous > 0) {
		if (pthread_create(&s->cont, NULL, continuous, s)) {
			rc = -EAGAIN;
			snprintf(err, errlen, "cannot start the profiling thread");
		} else {
			s->cont_running = true;
		}
	}
	if (rc) {
		serve__stop(s);
		return rc;
	}
	*out = s;
	return 0;
}

uint16_t serve__port(const struct server *s)
{
	return s->port;
}

void serve__stop(struct server *s)
{
	if (!s)
		return;
	s->stop = true;	/* profiles in flight end their windows now */
	if (s->d)
		dl_MHD_stop_daemon(s->d);
	if (s->cont_running)
		pthread_join(s->cont, NULL);
	metrics__free(s->m);
	for (int i = 0; i < MAX_SLOTS; i++)
		serve_profile__free(&s->slots[i].result);
	serve_profile__free(&s->last);
	serve_web__free(&s->web);
	pthread_cond_destroy(&s->done);
	pthread_mutex_destroy(&s->lock);
	free(s);
}
