// SPDX-License-Identifier: GPL-2.0
/*
 * symbol.c - the symbolizer's processes: each pid's memory maps (as a recording
 * reported them, or read from /proc/PID/maps), fork/exec/exit, and resolution
 * of an address: map -> file offset -> ELF vaddr -> the DSO's cached frames;
 * anonymous code through the JIT's /tmp/perf-PID.map; the kernel through
 * /proc/kallsyms. ELF work is in dso.c, the DWARF unwinder in unwind.c.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/proc/maps.h"
#include "lib/symbol/debugfile.h"
#include "lib/symbol/symbol_int.h"
#include "lib/util.h"

struct strtab {
	char **slot;
	size_t cap, used;
};

static unsigned long hash_str(const char *str)
{
	unsigned long h = 1469598103934665603UL;

	for (; *str; str++)
		h = (h ^ (unsigned char)*str) * 1099511628211UL;
	return h;
}

const char *symbolizer__intern(struct symbolizer *s, const char *str)
{
	struct strtab *t = s->names;
	size_t i;

	if ((t->used + 1) * 2 > t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 256;
		char **slot = calloc(cap, sizeof(*slot));

		if (!slot)
			return NULL;
		for (size_t j = 0; j < t->cap; j++) {
			if (!t->slot[j])
				continue;
			for (i = hash_str(t->slot[j]) & (cap - 1); slot[i]; i = (i + 1) & (cap - 1))
				;
			slot[i] = t->slot[j];
		}
		free(t->slot);
		t->slot = slot;
		t->cap = cap;
	}
	for (i = hash_str(str) & (t->cap - 1); t->slot[i]; i = (i + 1) & (t->cap - 1))
		if (!strcmp(t->slot[i], str))
			return t->slot[i];
	t->slot[i] = strdup(str);
	if (t->slot[i])
		t->used++;
	return t->slot[i];
}

struct symbolizer *symbolizer__new(unsigned flags)
{
	struct symbolizer *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->names = calloc(1, sizeof(*s->names));
	if (!s->names) {
		free(s);
		return NULL;
	}
	s->flags = flags;
	s->vdso_fd = -2;
	s->cb.find_elf = dwfl_build_id_find_elf;
	s->cb.find_debuginfo = debugfile__find_debuginfo;	/* libdwfl's, without debuginfod for nothing */
	s->cb.section_address = dwfl_offline_section_address;
	s->cb.debuginfo_path = &s->debug_path;
	return s;
}

int symbolizer__set_debug_path(struct symbolizer *s, const char *path)
{
	char *p = path ? strdup(path) : NULL;

	if (path && !p)
		return -ENOMEM;
	free(s->debug_path);
	s->debug_path = p;
	return 0;
}

int symbolizer__set_root(struct symbolizer *s, const char *dir)
{
	char *r = dir ? strdup(dir) : NULL;

	if (dir && !r)
		return -ENOMEM;
	free(s->root);
	s->root = r;
	if (r && !s->debug_path) {	/* and its debug files */
		char *dbg;

		if (asprintf(&dbg, ":.debug:%s/usr/lib/debug", r) < 0)
			return -ENOMEM;
		s->debug_path = dbg;
	}
	return 0;
}

int symbolizer__add_build_id(struct symbolizer *s, const char *path, const uint8_t *build_id, size_t len)
{
	const char *key = path ? symbolizer__intern(s, path) : NULL;
	struct known_build_id *b;

	if (!path || !build_id || !len)
		return -EINVAL;
	if (!key)
		return -ENOMEM;
	for (b = s->build_ids; b && b->path != key; b = b->next)
		;
	if (!b) {
		b = calloc(1, sizeof(*b));
		if (!b)
			return -ENOMEM;
		b->path = key;
		b->next = s->build_ids;
		s->build_ids = b;
	}
	b->len = len < sizeof(b->id) ? len : sizeof(b->id);
	memcpy(b->id, build_id, b->len);
	return 0;
}

static void proc_free(struct proc *p)
{
	free(p->maps);
	jitmap__free(p->jit);
	unwind__free_state(p->uw);
	free(p);
}

void symbolizer__free(struct symbolizer *s)
{
	if (!s)
		return;
	for (size_t h = 0; h < sizeof(s->procs) / sizeof(s->procs[0]); h++)
		for (struct proc *p = s->procs[h], *next; p; p = next) {
			next = p->next;
			proc_free(p);
		}
	for (struct file_dso *fd = s->files, *next; fd; fd = next) {
		next = fd->next;
		free(fd);
	}
	for (struct known_build_id *b = s->build_ids, *next; b; b = next) {
		next = b->next;
		free(b);
	}
	for (size_t i = 0; i < s->nksyms; i++)
		free(s->ksyms[i].name);
	free(s->ksyms);
	free(s->root);
	free(s->kallsyms_path);
	dso__free_all(s);
	kallsyms__free(s->kallsyms);
	ksymcache__close(s->ksymcache);
	if (s->vdso_fd >= 0)
		close(s->vdso_fd);
	for (size_t i = 0; i < s->names->cap; i++)
		free(s->names->slot[i]);
	free(s->names->slot);
	free(s->names);
	free(s->debug_path);
	free(s);
}

void symbolizer__stats(const struct symbolizer *s, struct symbolizer_stats *st)
{
	*st = s->stats;
}

struct proc *symbolizer__proc(struct symbolizer *s, pid_t pid, bool create)
{
	size_t h = (unsigned)pid % (sizeof(s->procs) / sizeof(s->procs[0]));
	struct proc *p;

	for (p = s->procs[h]; p; p = p->next)
		if (p->pid == pid)
			return p;
	if (!create)
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = pid;
	p->next = s->procs[h];
	s->procs[h] = p;
	return p;
}

static void proc_clear(struct proc *p)
{
	p->n = 0;
	p->gen++;
	jitmap__free(p->jit);
	p->jit = NULL;
	p->jit_state = 0;
}

static int maps_reserve(struct proc *p, size_t extra)
{
	if (p->n + extra <= p->cap)
		return 0;
	size_t cap = p->cap ? p->cap * 2 : 32;

	while (cap < p->n + extra)
		cap *= 2;
	struct map *m = realloc(p->maps, cap * sizeof(*m));

	if (!m)
		return -ENOMEM;
	p->maps = m;
	p->cap = cap;
	return 0;
}

/* insert m, cutting away whatever it overlaps (a new mapping replaces the old pages) */
static int maps_insert(struct proc *p, const struct map *m)
{
	struct map *nm = malloc((p->n + 3) * sizeof(*nm));
	size_t out = 0;
	bool placed = false;

	if (!nm)
		return -ENOMEM;
	for (size_t i = 0; i < p->n; i++) {
		struct map o = p->maps[i];

		if (!placed && o.start >= m->start) {
			nm[out++] = *m;
			placed = true;
		}
		if (o.end <= m->start || o.start >= m->end) {
			nm[out++] = o;
			continue;
		}
		if (o.start < m->start) {		/* the part on the left stays */
			struct map l = o;

			l.end = m->start;
			nm[out++] = l;
			if (!placed) {
				nm[out++] = *m;
				placed = true;
			}
		}
		if (o.end > m->end) {			/* and the part on the right */
			struct map r = o;

			r.pgoff += m->end - o.start;
			r.start = m->end;
			nm[out++] = r;
		}
	}
	if (!placed)
		nm[out++] = *m;
	free(p->maps);
	p->maps = nm;
	p->cap = p->n + 3;
	p->n = out;
	p->gen++;
	return 0;
}

static enum map_kind map_kind(const char *path)
{
	if (!strcmp(path, "[vdso]"))
		return MK_VDSO;
	if (path[0] == '/' && path[1] != '/' && strncmp(path, "/memfd:", 7) && strncmp(path, "/tmp/perf-", 10))
		return MK_FILE;
	if (!path[0] || !strncmp(path, "//anon", 6) || !strncmp(path, "[anon", 5) || !strncmp(path, "/memfd:", 7) ||
	    !strcmp(path, "[heap]") || !strncmp(path, "[stack", 6))
		return MK_ANON;
	return MK_OTHER;
}

static int add_map(struct symbolizer *s, struct proc *p, uint64_t start, uint64_t end, uint64_t pgoff,
		   const char *name, const char *file, const uint8_t *build_id, size_t build_id_len)
{
	struct map m = { .start = start, .end = end, .pgoff = pgoff, .kind = map_kind(name) };

	if (end <= start)
		return -EINVAL;
	m.name = symbolizer__intern(s, name);
	if (!m.name)
		return -ENOMEM;
	if (m.kind == MK_FILE || m.kind == MK_VDSO) {
		m.dso = dso__get(s, name, file ? file : name, build_id, build_id_len, m.kind == MK_VDSO);
		if (!m.dso)
			return -ENOMEM;
	}
	return maps_insert(p, &m);
}

int symbolizer__add_mmap(struct symbolizer *s, pid_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
			 const char *path, const uint8_t *build_id, size_t build_id_len)
{
	struct proc *p = symbolizer__proc(s, pid, true);

	if (!p)
		return -ENOMEM;
	if (!path || start + len < start)
		return -EINVAL;
	/* "/usr/sbin/foo (deleted)": the file was replaced while it ran; the path may hold the same build */
	char trimmed[PATH_MAX];
	size_t plen = strlen(path), dl = strlen(" (deleted)");

	if (path[0] == '/' && plen > dl && plen - dl < sizeof(trimmed) && !strcmp(path + plen - dl, " (deleted)")) {
		snprintf(trimmed, sizeof(trimmed), "%.*s", (int)(plen - dl), path);
		path = trimmed;
	}
	if (!build_id || !build_id_len) {	/* the recording's header may know it */
		const char *key = s->build_ids ? symbolizer__intern(s, path) : NULL;

		for (struct known_build_id *b = s->build_ids; b; b = b->next)
			if (b->path == key) {
				build_id = b->id;
				build_id_len = b->len;
				break;
			}
	}
	if (s->root && path[0] == '/') {
		char file[PATH_MAX];

		snprintf(file, sizeof(file), "%s%s", s->root, path);
		if (access(file, R_OK) == 0)
			return add_map(s, p, start, start + len, pgoff, path, file, build_id, build_id_len);
	}
	return add_map(s, p, start, start + len, pgoff, path, NULL, build_id, build_id_len);
}

int symbolizer__fork(struct symbolizer *s, pid_t parent, pid_t child)
{
	struct proc *pp = symbolizer__proc(s, parent, false), *c;

	if (!pp)
		return -ESRCH;
	c = symbolizer__proc(s, child, true);
	if (!c)
		return -ENOMEM;
	if (c == pp)
		return 0;
	proc_clear(c);
	if (maps_reserve(c, pp->n))
		return -ENOMEM;
	if (pp->n)	/* a parent with no maps yet has no array to copy (memcpy takes no NULL) */
		memcpy(c->maps, pp->maps, pp->n * sizeof(*pp->maps));
	c->n = pp->n;
	c->live = pp->live;
	return 0;
}

void symbolizer__exec(struct symbolizer *s, pid_t pid)
{
	struct proc *p = symbolizer__proc(s, pid, false);

	if (p)
		proc_clear(p);
}

void symbolizer__exit(struct symbolizer *s, pid_t pid)
{
	size_t h = (unsigned)pid % (sizeof(s->procs) / sizeof(s->procs[0]));

	for (struct proc **pp = &s->procs[h]; *pp; pp = &(*pp)->next)
		if ((*pp)->pid == pid) {
			struct proc *p = *pp;

			*pp = p->next;
			proc_free(p);
			return;
		}
}

/* the executable mappings of a live process; files through /proc/PID/root (containers) or map_files (deleted) */
static int read_proc_maps(struct symbolizer *s, struct proc *p)
{
	char file[PATH_MAX + 64];
	struct proc_maps *it = proc_maps__open(p->pid);
	const struct proc_map *m;
	int err = 0;

	if (!it)
		return -errno;
	proc_clear(p);
	p->live = true;
	p->loaded_at = util__now_s();
	while (!err && (m = proc_maps__next(it))) {
		if (!proc_map__exec(m))
			continue;
		char *name = m->name;
		size_t len = strlen(name);
		const char *open = NULL;

		if (map_kind(name) == MK_FILE) {
			const char *deleted = " (deleted)";
			size_t dl = strlen(deleted);

			if (len > dl && !strcmp(name + len - dl, deleted)) {
				/* replaced or removed since: the mapped file itself is still reachable */
				snprintf(file, sizeof(file), "/proc/%d/map_files/%llx-%llx", (int)p->pid,
					 (unsigned long long)m->start, (unsigned long long)m->end);
				name[len - dl] = 0;
			} else {
				snprintf(file, sizeof(file), "/proc/%d/root%s", (int)p->pid, name);
			}
			open = access(file, R_OK) == 0 ? file : NULL;
		}
		err = add_map(s, p, m->start, m->end, m->pgoff, name, open, NULL, 0);
	}
	proc_maps__close(it);
	return err;
}

int symbolizer__load_proc_maps(struct symbolizer *s, pid_t pid)
{
	struct proc *p = symbolizer__proc(s, pid, true);

	if (!p)
		return -ENOMEM;
	return read_proc_maps(s, p);
}

static const struct map *find_map(const struct proc *p, uint64_t addr)
{
	size_t lo = sym__upper_bound(p->maps, p->n, sizeof(*p->maps), offsetof(struct map, start), addr);

	if (lo && addr < p->maps[lo - 1].end)
		return &p->maps[lo - 1];
	return NULL;
}

/* NSpid's last field: the pid inside the process's own pid namespace */
static pid_t ns_pid(pid_t pid)
{
	char path[64], line[256];
	pid_t nspid = pid;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return pid;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "NSpid:", 6))
			continue;
		for (char *tok = strtok(line + 6, " \t\n"); tok; tok = strtok(NULL, " \t\n"))
			nspid = atoi(tok);
	}
	fclose(f);
	return nspid;
}

static void jit_load(struct proc *p)
{
	char file[128];
	struct stat st;

	jitmap__free(p->jit);
	p->jit = NULL;
	snprintf(file, sizeof(file), "/tmp/perf-%d.map", (int)p->pid);
	p->jit_state = jitmap__load(&p->jit, file);
	if (p->jit_state && p->live) {	/* a container's JIT writes in its own /tmp, with its own pid */
		snprintf(file, sizeof(file), "/proc/%d/root/tmp/perf-%d.map", (int)p->pid, (int)ns_pid(p->pid));
		p->jit_state = jitmap__load(&p->jit, file);
	}
	if (!p->jit_state)
		p->jit_state = 1;
	p->jit_checked_at = util__now_s();
	p->jit_size = p->jit_mtime = -1;
	if (p->jit && stat(jitmap__path(p->jit), &st) == 0) {
		p->jit_size = st.st_size;
		p->jit_mtime = st.st_mtime;
	}
}

/* has the live process's JIT written more since we read its map? (looked at once a second at most) */
static bool jit_stale(struct proc *p)
{
	struct stat st;

	if (!p->live || util__now_s() - p->jit_checked_at < 1.0)
		return false;
	p->jit_checked_at = util__now_s();
	if (!p->jit)
		return true;	/* not there before: maybe now */
	return stat(jitmap__path(p->jit), &st) == 0 && (st.st_size != p->jit_size || st.st_mtime != p->jit_mtime);
}

static const struct jit_sym *find_jit(struct proc *p, uint64_t addr, const char **path)
{
	const struct jit_sym *j = NULL;

	if (!p->jit_state)
		jit_load(p);
	if (p->jit_state == 1)
		j = jitmap__find(p->jit, addr);
	if (!j && jit_stale(p)) {
		jit_load(p);
		if (p->jit_state == 1)
			j = jitmap__find(p->jit, addr);
	}
	if (j)
		*path = jitmap__path(p->jit);
	return j;
}

int symbolizer__set_kallsyms(struct symbolizer *s, const char *path)
{
	char *p = path ? strdup(path) : NULL;

	if (path && !p)
		return -ENOMEM;
	free(s->kallsyms_path);
	s->kallsyms_path = p;
	return 0;
}

/* a recording of another kernel (its build id from the header differs): this one's symbols would lie */
static int kernel_check(struct symbolizer *s)
{
	const char *key = s->build_ids ? symbolizer__intern(s, "[kernel.kallsyms]") : NULL;
	uint8_t running[64];
	int n;

	if (s->kallsyms_path)
		return 0;
	for (struct known_build_id *b = s->build_ids; b; b = b->next) {
		size_t len = b->len;

		if (b->path != key)
			continue;
		while (len && !b->id[len - 1])
			len--;		/* perf pads to 20 bytes */
		n = kallsyms__running_build_id(running, sizeof(running));
		if (n > 0 && ((size_t)n != len || memcmp(running, b->id, len)))
			return -ESTALE;
	}
	return 0;
}

int symbolizer__add_ksymbol(struct symbolizer *s, uint64_t addr, uint32_t len, const char *name)
{
	struct rec_ksym *n;

	for (size_t i = 0; i < s->nksyms; i++)	/* loaded again at the same place: the newest name */
		if (s->ksyms[i].addr == addr) {
			char *d = strdup(name);

			if (!d)
				return -ENOMEM;
			free(s->ksyms[i].name);
			s->ksyms[i].name = d;
			s->ksyms[i].len = len;
			return 0;
		}
	n = realloc(s->ksyms, (s->nksyms + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	s->ksyms = n;
	n[s->nksyms].addr = addr;
	n[s->nksyms].len = len;
	if (!(n[s->nksyms].name = strdup(name)))
		return -ENOMEM;
	s->nksyms++;
	return 0;
}

/*
 * The kernel's symbols: this boot's cached table when there is a valid one
 * (ksymcache.c), else /proc/kallsyms, read whole and then cached. A copy of
 * another machine's kallsyms (--kallsyms) is read as it is.
 */
static void kernel_symbols(struct symbolizer *s)
{
	bool cache = !s->kallsyms_path && !ksymcache__disabled();
	size_t n;
	int err = kernel_check(s);

	if (!err && cache && !ksymcache__open(&s->ksymcache, NULL)) {
		s->kallsyms_state = 2;
		return;
	}
	err = err ?: kallsyms__load(&s->kallsyms, s->kallsyms_path ?: "/proc/kallsyms");
	if (!err && cache) {
		const struct ksym *all = kallsyms__syms(s->kallsyms, &n);

		ksymcache__save(all, n, NULL);	/* no cache is no error: the next run reads kallsyms again */
	}
	s->kallsyms_state = err ?: 1;
}

static int resolve_kernel(struct symbolizer *s, uint64_t addr, struct sym_frame *out)
{
	const struct ksym *k = NULL;
	struct ksym cached;

	/*
	 * a BPF program the recording saw, gone or replaced since: named as it was then; as in
	 * perf, the program is its own DSO, and an address in it is an offset from its start
	 */
	for (size_t i = s->nksyms; i-- > 0;)
		if (addr >= s->ksyms[i].addr && addr - s->ksyms[i].addr < s->ksyms[i].len) {
			*out = (struct sym_frame){ .sym = s->ksyms[i].name, .offset = addr - s->ksyms[i].addr,
						   .dso = s->ksyms[i].name, .dso_addr = addr - s->ksyms[i].addr };
			return 1;
		}
	if (!s->kallsyms_state)
		kernel_symbols(s);
	if (s->kallsyms_state == 2) {
		int r = ksymcache__find(s->ksymcache, addr, &cached);

		if (r == 1)
			k = &cached;
		/* where BPF programs and modules come and go: read them once (only them: the cache has the rest) */
		if (r < 0 && !s->full_state)
			s->full_state = ksymcache__load_others(s->ksymcache, "/proc/kallsyms", &s->kallsyms) ?: 1;
		if (r < 0 && s->full_state == 1)
			k = ksymcache__find_full(s->ksymcache, s->kallsyms, addr, &cached);
	} else if (s->kallsyms_state == 1) {
		k = kallsyms__find(s->kallsyms, addr);
	}
	*out = (struct sym_frame){ .dso = "[kernel.kallsyms]", .dso_addr = addr };
	/* with the recording's own BPF symbols known, a program in kallsyms now is another one */
	if (k && !(s->nksyms && k->module && !strcmp(k->module, "[bpf]"))) {
		out->sym = k->name;
		out->offset = addr - k->addr;
		out->dso = k->module;
	}
	return 1;
}

int symbolizer__resolve(struct symbolizer *s, pid_t pid, uint64_t addr, bool kernel,
			struct sym_frame *out, int max)
{
	const struct sym_frame *frames;
	const struct map *m = NULL;
	const struct jit_sym *j;
	const char *jpath = NULL;
	struct proc *p;
	int n;

	if (max < 1 || !out)
		return -EINVAL;
	s->stats.lookups++;
	if (kernel)
		return resolve_kernel(s, addr, out);
	p = symbolizer__proc(s, pid, false);
	if (p)
		m = find_map(p, addr);
	if (p && !m && p->live && util__now_s() - p->loaded_at > 1.0 && read_proc_maps(s, p) == 0)
		m = find_map(p, addr);	/* a live process may have mapped more since */
	*out = (struct sym_frame){ .dso_addr = addr };
	if (m && m->dso) {
		uint64_t off = addr - m->start + m->pgoff;

		out->dso = m->dso->name;
		out->dso_addr = off;
		out->object = m->dso;
		if (dso__load(s, m->dso))
			return 1;
		out->dso_addr = dso__vaddr(m->dso, off);
		n = dso__resolve(s, m->dso, out->dso_addr, &frames);
		if (n < 0)
			return n;
		if (n > max) {		/* keep the outer frames: the real function comes last */
			frames += n - max;
			n = max;
		}
		memcpy(out, frames, n * sizeof(*out));
		return n;
	}
	if (p && (!m || m->kind == MK_ANON) && (j = find_jit(p, addr, &jpath))) {
		out->sym = j->name;
		out->offset = addr - j->start;
		out->dso = jpath;
		return 1;
	}
	if (m) {
		out->dso = m->name;
		out->dso_addr = addr - m->start + m->pgoff;
	}
	return 1;
}

int symbolizer__resolve_file(struct symbolizer *s, const char *path, uint64_t vaddr,
			     struct sym_frame *out, int max)
{
	const struct sym_frame *frames;
	struct dso *d;
	int n;

	if (max < 1 || !out || !path)
		return -EINVAL;
	s->stats.lookups++;
	/* one stat() per file, not per address: remember the DSO of each path asked for */
	const char *key = symbolizer__intern(s, path);
	struct file_dso *fd;

	if (!key)
		return -ENOMEM;
	for (fd = s->files; fd && fd->path != key; fd = fd->next)
		;
	if (!fd) {
		fd = calloc(1, sizeof(*fd));
		if (!fd)
			return -ENOMEM;
		fd->path = key;
		fd->dso = dso__get(s, path, path, NULL, 0, false);
		fd->next = s->files;
		s->files = fd;
	}
	d = fd->dso;
	if (!d)
		return -ENOMEM;
	n = dso__load(s, d);
	if (n)
		return n;
	n = dso__resolve(s, d, vaddr, &frames);
	if (n < 0)
		return n;
	if (n > max) {
		frames += n - max;
		n = max;
	}
	memcpy(out, frames, n * sizeof(*out));
	return n;
}
