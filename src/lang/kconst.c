// SPDX-License-Identifier: GPL-2.0
/*
 * kconst.c - the #define constants of the headers a script #includes:
 * AF_INET, TASK_RUNNING. bpftrace hands a script's #includes to clang; sonde
 * reads the `#define NAME VALUE` lines of the same headers as this machine has
 * them (the kernel's UAPI headers, /usr/include/linux from linux-libc-dev,
 * and libc's, such as <sys/socket.h>), follows their own #includes, and
 * computes VALUE when it is a constant expression of integers, casts and other
 * such names. Conditionals are not followed: a name's first #define wins, and
 * function-like ones are never expanded.
 *
 * Names the kernel keeps out of its UAPI headers come from the small table
 * below, each under the header that defines them in the kernel's tree: the
 * task states of <linux/sched.h> (the values of kernels since 5.19; runqlat.bt
 * compares with TASK_RUNNING) and the address families of <linux/socket.h>,
 * which also stand for <sys/socket.h> and <net/sock.h> where libc's headers
 * are not installed. An installed header's #define comes first.
 *
 * Identifiers are looked up here last: after the BTF enumerators (enumfmt.c),
 * <errno.h>'s names and <syscall.h>'s (check.c).
 */
#include "lang/lang.h"
#include "lang/enumfmt.h"

#include "lib/util.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#if defined(__x86_64__)
#define MULTIARCH "x86_64-linux-gnu"
#elif defined(__aarch64__)
#define MULTIARCH "aarch64-linux-gnu"
#elif defined(__i386__)
#define MULTIARCH "i386-linux-gnu"
#else
#define MULTIARCH ""
#endif

/* the kernel's own definitions of what its UAPI headers leave out (values, not the kernel's text) */
static const struct {
	const char *headers;	/* the #includes that bring them, separated by spaces */
	const char *text;	/* #define lines */
} builtin_headers[] = {
	{ "linux/sched.h",
	  "#define TASK_RUNNING 0x0000\n#define TASK_INTERRUPTIBLE 0x0001\n"
	  "#define TASK_UNINTERRUPTIBLE 0x0002\n#define __TASK_STOPPED 0x0004\n#define __TASK_TRACED 0x0008\n"
	  "#define EXIT_DEAD 0x0010\n#define EXIT_ZOMBIE 0x0020\n#define EXIT_TRACE (EXIT_ZOMBIE | EXIT_DEAD)\n"
	  "#define TASK_PARKED 0x0040\n#define TASK_DEAD 0x0080\n#define TASK_WAKEKILL 0x0100\n"
	  "#define TASK_WAKING 0x0200\n#define TASK_NOLOAD 0x0400\n#define TASK_NEW 0x0800\n"
	  "#define TASK_RTLOCK_WAIT 0x1000\n#define TASK_KILLABLE (TASK_WAKEKILL | TASK_UNINTERRUPTIBLE)\n"
	  "#define TASK_STOPPED (TASK_WAKEKILL | __TASK_STOPPED)\n#define TASK_TRACED __TASK_TRACED\n"
	  "#define TASK_IDLE (TASK_UNINTERRUPTIBLE | TASK_NOLOAD)\n"
	  "#define TASK_NORMAL (TASK_INTERRUPTIBLE | TASK_UNINTERRUPTIBLE)\n" },
	{ "linux/socket.h sys/socket.h net/sock.h",
	  "#define AF_UNSPEC 0\n#define AF_UNIX 1\n#define AF_LOCAL 1\n#define AF_INET 2\n#define AF_INET6 10\n"
	  "#define AF_NETLINK 16\n#define AF_PACKET 17\n#define AF_VSOCK 40\n#define AF_XDP 44\n"
	  "#define PF_UNSPEC AF_UNSPEC\n#define PF_UNIX AF_UNIX\n#define PF_LOCAL AF_LOCAL\n#define PF_INET AF_INET\n"
	  "#define PF_INET6 AF_INET6\n#define PF_NETLINK AF_NETLINK\n#define PF_PACKET AF_PACKET\n" },
};

enum { KC_BUCKETS = 512, KC_MAX_FILES = 128, KC_MAX_NEST = 16, KC_MAX_DEPTH = 32 };

struct kdef {
	const char *name, *val;
	struct kdef *next;
};

struct kinc {
	const char *name;
	bool quoted;
	struct kinc *next;
};

struct kconst {
	struct kinc *incs, **tail;
	bool loaded;
	struct kdef *hash[KC_BUCKETS];
	const char *seen[KC_MAX_FILES];	/* the files read, each once */
	int nseen;
};

static unsigned hash(const char *s, size_t n)
{
	unsigned h = 5381;

	while (n--)
		h = h * 33 + (unsigned char)*s++;
	return h % KC_BUCKETS;
}

static struct kdef *find(const struct kconst *k, const char *s, size_t n)
{
	for (struct kdef *d = k->hash[hash(s, n)]; d; d = d->next)
		if (strlen(d->name) == n && !strncmp(d->name, s, n))
			return d;
	return NULL;
}

static struct kconst *kconst_of(struct program *p)
{
	if (!p->kconst) {
		p->kconst = arena__alloc(p->arena, sizeof(*p->kconst));
		p->kconst->tail = &p->kconst->incs;
	}
	return p->kconst;
}

void kconst__include(struct program *p, const char *s, const char *e)
{
	const char *q;
	struct kinc *inc;

	while (s < e && isspace((unsigned char)*s))
		s++;
	if (s == e || (*s != '<' && *s != '"'))
		return;
	q = memchr(s + 1, *s == '<' ? '>' : '"', e - s - 1);
	if (!q || q == s + 1)
		return;
	inc = arena__alloc(p->arena, sizeof(*inc));
	inc->name = arena__strndup(p->arena, s + 1, q - s - 1);
	inc->quoted = *s == '"';
	*kconst_of(p)->tail = inc;
	kconst_of(p)->tail = &inc->next;
}

/* text without its comments, with continued lines joined (malloc'ed) */
static char *clean(const char *s, size_t n)
{
	char *out = malloc(n + 1), *o = out;
	char quote = 0;

	if (!out)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (quote) {
			if (s[i] == '\\' && i + 1 < n)
				*o++ = s[i++];
			else if (s[i] == quote || s[i] == '\n')
				quote = 0;
			*o++ = s[i];
		} else if (s[i] == '/' && i + 1 < n && s[i + 1] == '*') {
			const char *end = memmem(s + i + 2, n - i - 2, "*/", 2);

			i = end ? (size_t)(end - s) + 1 : n;
			*o++ = ' ';
		} else if (s[i] == '/' && i + 1 < n && s[i + 1] == '/') {
			while (i + 1 < n && s[i + 1] != '\n')
				i++;
		} else if (s[i] == '\\' && i + 1 < n && s[i + 1] == '\n') {
			i++;
			*o++ = ' ';
		} else {
			if (s[i] == '"' || s[i] == '\'')
				quote = s[i];
			*o++ = s[i];
		}
	}
	*o = 0;
	return out;
}

static void read_header(struct program *p, const char *name, bool quoted, const char *dir, int nest);

/* the #define and #include lines of text, which comes from the file at path (NULL for the table's) */
static void scan(struct program *p, const char *text, size_t len, const char *path, int nest)
{
	struct kconst *k = p->kconst;
	char *c = clean(text, len), *dir = NULL;
	const char *slash = path ? strrchr(path, '/') : NULL;

	if (!c)
		return;
	if (slash)
		dir = arena__strndup(p->arena, path, slash - path);
	for (char *l = c, *e; *l; l = *e ? e + 1 : e) {
		size_t n;
		char *w;

		e = strchr(l, '\n');
		if (!e)
			e = l + strlen(l);
		while (l < e && isspace((unsigned char)*l))
			l++;
		if (l == e || *l != '#')
			continue;
		for (l++; l < e && isspace((unsigned char)*l); l++)
			;
		if (e - l > 7 && !strncmp(l, "include", 7) && nest < KC_MAX_NEST) {
			char *q, *s = l + 7;

			while (s < e && isspace((unsigned char)*s))
				s++;
			q = s < e ? memchr(s + 1, *s == '<' ? '>' : '"', e - s - 1) : NULL;
			if (q && (*s == '<' || *s == '"')) {
				char *name = arena__strndup(p->arena, s + 1, q - s - 1);

				read_header(p, name, *s == '"', dir, nest + 1);
			}
			continue;
		}
		if (e - l <= 6 || strncmp(l, "define", 6) || !isspace((unsigned char)l[6]))
			continue;
		for (w = l + 6; w < e && isspace((unsigned char)*w); w++)
			;
		for (n = 0; w + n < e && (isalnum((unsigned char)w[n]) || w[n] == '_'); n++)
			;
		if (!n || w[n] == '(' || find(k, w, n))	/* function-like, or defined already */
			continue;
		struct kdef *d = arena__alloc(p->arena, sizeof(*d));
		const char *v = w + n, *ve = e;

		while (v < ve && isspace((unsigned char)*v))
			v++;
		while (ve > v && isspace((unsigned char)ve[-1]))
			ve--;
		d->name = arena__strndup(p->arena, w, n);
		d->val = arena__strndup(p->arena, v, ve - v);
		d->next = k->hash[hash(w, n)];
		k->hash[hash(w, n)] = d;
	}
	free(c);
}

static void read_header(struct program *p, const char *name, bool quoted, const char *dir, int nest)
{
	struct kconst *k = p->kconst;
	const char *dirs[] = { quoted ? dir : NULL, "/usr/include/" MULTIARCH, "/usr/include" };

	if (name[0] == '/')	/* a path: itself only */
		dirs[0] = "", dirs[1] = dirs[2] = NULL;
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		char path[4096], *text;
		struct stat st;
		size_t len;
		int j;

		if (!dirs[i])
			continue;
		snprintf(path, sizeof(path), "%s%s%s", dirs[i], *dirs[i] ? "/" : "", name);
		if (stat(path, &st) || !S_ISREG(st.st_mode) || util__read_file(path, 16 << 20, &text, &len))
			continue;
		for (j = 0; j < k->nseen && strcmp(k->seen[j], path); j++)
			;
		if (j == k->nseen && k->nseen < KC_MAX_FILES) {
			k->seen[k->nseen++] = arena__strndup(p->arena, path, strlen(path));
			scan(p, text, len, path, nest);
		}
		free(text);
		return;
	}
}

/* every included header's #defines, then the table's for the headers it has */
static void load(struct program *p)
{
	struct kconst *k = kconst_of(p);
	const char *slash = strrchr(p->file, '/');
	const char *dir = slash ? arena__strndup(p->arena, p->file, slash - p->file) : ".";

	k->loaded = true;
	for (struct kinc *inc = k->incs; inc; inc = inc->next)
		read_header(p, inc->name, inc->quoted, dir, 0);
	for (size_t i = 0; i < sizeof(builtin_headers) / sizeof(builtin_headers[0]); i++) {
		bool wanted = false;

		for (struct kinc *inc = k->incs; inc && !wanted; inc = inc->next) {
			const char *h = strstr(builtin_headers[i].headers, inc->name);
			size_t n = strlen(inc->name);

			wanted = h && (h == builtin_headers[i].headers || h[-1] == ' ') && (h[n] == ' ' || !h[n]);
		}
		if (wanted)
			scan(p, builtin_headers[i].text, strlen(builtin_headers[i].text), NULL, 0);
	}
}

/* ---- the value of a #define: a C constant expression, computed in 64 bits ---- */
struct ev {
	struct program *p;
	const char *s;
	int depth;
	bool bad;
};

static uint64_t ev_or(struct ev *v);
static bool value_of(struct program *p, const char *name, size_t n, int depth, uint64_t *out);

static void ev_space(struct ev *v)
{
	while (isspace((unsigned char)*v->s))
		v->s++;
}

static bool ev_eat(struct ev *v, const char *op)
{
	size_t n = strlen(op);

	ev_space(v);
	if (strncmp(v->s, op, n))
		return false;
	/* '&' is not '&&', '|' is not '||' (nor '<' '<<' or '<=': not operators here) */
	if (n == 1 && strchr("&|<>", op[0]) && (v->s[1] == op[0] || v->s[1] == '='))
		return false;
	v->s += n;
	return true;
}

static bool is_type_word(const char *w, size_t n)
{
	static const char *const words[] = { "unsigned", "signed", "int", "long", "short", "char", "const" };

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strlen(words[i]) == n && !strncmp(w, words[i], n))
			return true;
	if (n > 2 && w[n - 2] == '_' && w[n - 1] == 't')	/* size_t, uint32_t */
		return true;
	while (n && *w == '_')
		w++, n--;
	/* u8, __u64, s32, __be16, __le32 */
	return (n >= 2 && n <= 3 && (*w == 'u' || *w == 's') && isdigit((unsigned char)w[1])) ||
	       (n >= 4 && n <= 5 && (!strncmp(w, "be", 2) || !strncmp(w, "le", 2)) && isdigit((unsigned char)w[2]));
}

/* after '(': a cast's type words and ')' are skipped, true; else nothing is */
static bool ev_cast(struct ev *v)
{
	const char *s = v->s;
	int words = 0;

	for (;;) {
		size_t n = 0;

		while (isspace((unsigned char)*s) || *s == '*')
			s++;
		if (*s == ')' && words) {
			v->s = s + 1;
			return true;
		}
		while (isalnum((unsigned char)s[n]) || s[n] == '_')
			n++;
		if (!n || !is_type_word(s, n))
			return false;
		s += n;
		words++;
	}
}

static uint64_t ev_unary(struct ev *v)
{
	ev_space(v);
	if (ev_eat(v, "-"))
		return -ev_unary(v);
	if (ev_eat(v, "+"))
		return ev_unary(v);
	if (ev_eat(v, "~"))
		return ~ev_unary(v);
	if (ev_eat(v, "!"))
		return !ev_unary(v);
	if (ev_eat(v, "(")) {
		if (ev_cast(v))
			return ev_unary(v);
		uint64_t x = ev_or(v);

		if (!ev_eat(v, ")"))
			v->bad = true;
		return x;
	}
	if (isdigit((unsigned char)*v->s)) {
		char *end;
		uint64_t x = strtoull(v->s, &end, 0);

		while (*end == 'u' || *end == 'U' || *end == 'l' || *end == 'L')
			end++;
		if (isalnum((unsigned char)*end) || *end == '_' || *end == '.')
			v->bad = true;
		v->s = end;
		return x;
	}
	if (isalpha((unsigned char)*v->s) || *v->s == '_') {
		size_t n = 0;
		uint64_t x = 0;

		while (isalnum((unsigned char)v->s[n]) || v->s[n] == '_')
			n++;
		if (!value_of(v->p, v->s, n, v->depth + 1, &x))
			v->bad = true;
		v->s += n;
		return x;
	}
	v->bad = true;
	return 0;
}

static uint64_t ev_mul(struct ev *v)
{
	uint64_t x = ev_unary(v);

	while (!v->bad) {
		bool div = false;
		int op = ev_eat(v, "*") ? '*' : (div = ev_eat(v, "/")) ? '/' : (div = ev_eat(v, "%")) ? '%' : 0;
		uint64_t y;

		if (!op)
			break;
		y = ev_unary(v);
		if (div && !y)
			v->bad = true;
		else
			x = op == '*' ? x * y : op == '/' ? (uint64_t)((int64_t)x / (int64_t)y) :
				(uint64_t)((int64_t)x % (int64_t)y);
	}
	return x;
}

static uint64_t ev_add(struct ev *v)
{
	uint64_t x = ev_mul(v);

	while (!v->bad) {
		if (ev_eat(v, "+"))
			x += ev_mul(v);
		else if (ev_eat(v, "-"))
			x -= ev_mul(v);
		else
			break;
	}
	return x;
}

static uint64_t ev_shift(struct ev *v)
{
	uint64_t x = ev_add(v);

	while (!v->bad) {
		bool left = ev_eat(v, "<<");
		uint64_t y;

		if (!left && !ev_eat(v, ">>"))
			break;
		y = ev_add(v);
		if (y >= 64)
			v->bad = true;
		else
			x = left ? x << y : x >> y;
	}
	return x;
}

/* &, then ^, then |: C's order */
static uint64_t ev_and(struct ev *v)
{
	uint64_t x = ev_shift(v);

	while (!v->bad && ev_eat(v, "&"))
		x &= ev_shift(v);
	return x;
}

static uint64_t ev_xor(struct ev *v)
{
	uint64_t x = ev_and(v);

	while (!v->bad && ev_eat(v, "^"))
		x ^= ev_and(v);
	return x;
}

static uint64_t ev_or(struct ev *v)
{
	uint64_t x = ev_xor(v);

	while (!v->bad && ev_eat(v, "|"))
		x |= ev_xor(v);
	return x;
}

/*
 * the value of the name name[0..n) in a #define's value, when it is a
 * constant: another #define's, else a BTF enumerator's (glibc's
 * `#define IPPROTO_TCP IPPROTO_TCP` names the enum's)
 */
static bool value_of(struct program *p, const char *name, size_t n, int depth, uint64_t *out)
{
	const struct kdef *d = find(p->kconst, name, n);
	struct ev v = { .p = p, .s = d ? d->val : "", .depth = depth };

	if (d && *d->val && depth <= KC_MAX_DEPTH) {
		*out = ev_or(&v);
		ev_space(&v);
		if (!v.bad && !*v.s)
			return true;
	}
	if (depth) {	/* the name asked for is the #define's, not an enumerator (check.c looked first) */
		struct node e = { .s = arena__strndup(p->arena, name, n) };

		if (!enumfmt__ident(p, &e)) {
			*out = (uint64_t)e.i;
			return true;
		}
	}
	return false;
}

int kconst__value(struct program *p, const char *name, long long *out, const char **text)
{
	const struct kdef *d;
	uint64_t v;

	if (!p->kconst || !p->kconst->incs)
		return -ENOENT;
	if (!p->kconst->loaded)
		load(p);
	d = find(p->kconst, name, strlen(name));
	if (!d)
		return -ENOENT;
	if (!value_of(p, name, strlen(name), 0, &v)) {
		*text = *d->val ? d->val : "(nothing)";
		return -EINVAL;
	}
	*out = (long long)v;
	return 0;
}
