// SPDX-License-Identifier: GPL-2.0
/*
 * offcpu_maps.c - the memory maps of `sonde offcpu`'s targets, and which user
 * stack walk they need (see offcpu_maps.h).
 *
 * The maps are read here (lib/proc/maps.h) for offcpu's own use: lib/symbol
 * opens their files through /proc/PID/root/ (paths that stop opening once the
 * process is gone), and offcpu needs the paths as this mount namespace sees
 * them.
 */
#include "lib/bpf/offcpu_maps.h"
#include "lib/bpf/bpf_mmaps.h"
#include "lib/bpf/bpf_offcpu.h"
#include "lib/proc/maps.h"
#include "lib/proc/target.h"
#include "lib/symbol/framepointer.h"
#include "lib/symbol/symbol.h"
#include "lib/util.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* cb(lo, hi, offset, path, ctx) for each executable mapping of pid; 0 or -errno */
static int each_exec_map(pid_t pid, void (*cb)(uint64_t lo, uint64_t hi, uint64_t off, const char *path, void *ctx),
			 void *ctx)
{
	struct proc_maps *it = proc_maps__open(pid);
	const struct proc_map *m;

	if (!it)
		return -errno;
	while ((m = proc_maps__next(it)))
		if (proc_map__exec(m))
			cb(m->start, m->end, m->pgoff, m->name, ctx);
	proc_maps__close(it);
	return 0;
}

/* a process's executable maps, read before any is handed to the symbolizer */
struct snap {
	struct snap_map {
		uint64_t lo, hi, off;
		char *path;
	} *maps;
	int n;
	bool nomem;
};

static void add_map(uint64_t lo, uint64_t hi, uint64_t off, const char *path, void *ctx)
{
	struct snap *s = ctx;
	struct snap_map *nm = realloc(s->maps, (s->n + 1) * sizeof(*nm));
	char *dup;

	if (nm)
		s->maps = nm;
	if (!nm || !(dup = strdup(path))) {
		s->nomem = true;
		return;
	}
	nm[s->n++] = (struct snap_map){ lo, hi, off, dup };
}

/*
 * Snapshot a process's executable maps with their paths as this mount namespace
 * sees them: unlike /proc/PID/root/..., these paths still open once the process
 * has exited, which a target usually has by the time we symbolize. A process
 * that has gone, or is a zombie (its maps read empty), keeps its last snapshot.
 */
static void snapshot(struct symbolizer *sym, pid_t pid)
{
	struct snap s = { 0 };

	if (!each_exec_map(pid, add_map, &s) && s.n && !s.nomem) {
		symbolizer__exec(sym, pid);
		for (int i = 0; i < s.n; i++)
			symbolizer__add_mmap(sym, pid, s.maps[i].lo, s.maps[i].hi - s.maps[i].lo, s.maps[i].off,
					     s.maps[i].path, NULL, 0);
	}
	for (int i = 0; i < s.n; i++)
		free(s.maps[i].path);
	free(s.maps);
}

static bool seen(const struct offcpu_maps *m, pid_t p)
{
	for (int i = 0; i < m->nr_seen; i++)
		if (m->seen[i] == p)
			return true;
	return false;
}

static void mark_seen(struct offcpu_maps *m, pid_t p)
{
	pid_t *ns;

	if (seen(m, p) || !(ns = realloc(m->seen, (m->nr_seen + 1) * sizeof(*ns))))
		return;
	m->seen = ns;
	m->seen[m->nr_seen++] = p;
}

void offcpu_maps__init(struct offcpu_maps *m, struct symbolizer *sym, struct bpf_mmaps *mm)
{
	memset(m, 0, sizeof(*m));
	m->sym = sym;
	m->mm = mm;
	m->targets_fd = -1;
}

int offcpu_maps__tick(void *ctx)
{
	struct offcpu_maps *m = ctx;
	uint32_t k, next, *prev = NULL;
	bool alive = false;

	if (m->mm)
		bpf_mmaps__drain(m->mm);
	/* the targets' maps, every tick: they may exec, and exit before the end */
	while (m->targets_fd >= 0 && !bpf_map_get_next_key(m->targets_fd, prev, &next)) {
		k = next;
		prev = &k;
		snapshot(m->sym, k);
		mark_seen(m, k);
	}
	alive = target__any_alive(m->watched, m->nr_watched);
	return m->nr_watched && !alive;
}

int offcpu_maps__on_tick(void *m, int fd, short revents)
{
	(void)fd;
	(void)revents;
	return offcpu_maps__tick(m);
}

void offcpu_maps__before_unwind(void *ctx, pid_t tgid)
{
	struct offcpu_maps *m = ctx;
	uint64_t now = util__now_ns();

	/*
	 * new maps arrive as records: read them often, and for every new process; before every
	 * stack of -p's targets (few processes), which may exec between two of their stacks
	 */
	if (m->mm) {
		if (!seen(m, tgid) || m->targets_fd >= 0 || now - m->last_drain_ns > 5000000) {
			bpf_mmaps__drain(m->mm);
			m->last_drain_ns = now;
			/*
			 * a -p target's maps made before sonde came are in no event:
			 * read them at its first stack, not at the first tick (the
			 * stacks of its first 100 ms did not unwind)
			 */
			if (m->targets_fd >= 0 && !seen(m, tgid))
				snapshot(m->sym, tgid);
			mark_seen(m, tgid);
		}
	} else if (!seen(m, tgid)) {
		symbolizer__load_proc_maps(m->sym, tgid);
		mark_seen(m, tgid);
	}
}

void offcpu_maps__refresh(void *ctx, pid_t tgid)
{
	struct offcpu_maps *m = ctx;

	if (m->mm) {
		bpf_mmaps__drain(m->mm);
		m->last_drain_ns = util__now_ns();
	} else {
		symbolizer__load_proc_maps(m->sym, tgid);
	}
	mark_seen(m, tgid);
}

void offcpu_maps__load_rest(struct offcpu_maps *m, const struct offcpu_profile *p)
{
	for (int i = 0; i < p->n; i++)
		if (!seen(m, p->e[i].key.tgid) && symbolizer__load_proc_maps(m->sym, p->e[i].key.tgid) == 0)
			mark_seen(m, p->e[i].key.tgid);
}

void offcpu_maps__fini(struct offcpu_maps *m)
{
	free(m->seen);
	m->seen = NULL;
	m->nr_seen = 0;
}

/* the objects looked at for the choice of stack walk, each once */
struct objects {
	char path[32][PATH_MAX];
	int n;
};

static void add_object(struct objects *o, const char *path)
{
	if (path[0] != '/' || o->n == 32)
		return;
	for (int i = 0; i < o->n; i++)
		if (!strcmp(o->path[i], path))
			return;
	snprintf(o->path[o->n++], PATH_MAX, "%s", path);
}

static void add_mapped(uint64_t lo, uint64_t hi, uint64_t off, const char *path, void *ctx)
{
	(void)lo, (void)hi, (void)off;
	add_object(ctx, path);
}

/* where the loader would find library `name`: as sonde maps it, else in its directories */
static bool find_library(const struct objects *self, const char *name, char *out, size_t len)
{
	static const char *const dirs[] = {
		"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib",
	};

	for (int i = 0; i < self->n; i++) {
		const char *b = strrchr(self->path[i], '/');

		if (b && !strcmp(b + 1, name)) {
			snprintf(out, len, "%s", self->path[i]);
			return true;
		}
	}
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(out, len, "%s/%s", dirs[i], name);
		if (!access(out, R_OK))
			return true;
	}
	return false;
}

/* path of cmd as execvp would run it */
static bool find_command(const char *cmd, char *out, size_t len)
{
	const char *p = getenv("PATH");

	if (strchr(cmd, '/')) {
		snprintf(out, len, "%s", cmd);
		return !access(out, X_OK);
	}
	for (p = p ? p : "/usr/bin:/bin"; *p; p += *p == ':') {
		size_t l = strcspn(p, ":");

		snprintf(out, len, "%.*s/%s", (int)l, p, cmd);
		p += l;
		if (!access(out, X_OK))
			return true;
	}
	return false;
}

/* a command's executable (a script's interpreter) and the libraries it needs */
static void add_command(struct objects *o, const struct objects *self, const char *cmd)
{
	char path[PATH_MAX], lib[PATH_MAX], head[PATH_MAX];
	Elf_Scn *scn = NULL;
	Elf *e;
	int fd;
	ssize_t got;

	if (!find_command(cmd, path, sizeof(path)) || (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return;
	got = read(fd, head, sizeof(head) - 1);
	if (got > 2 && head[0] == '#' && head[1] == '!') {	/* a script: its interpreter runs */
		head[got] = 0;
		close(fd);
		head[2 + strcspn(head + 2, " \t\n")] = 0;
		if (strcmp(head + 2, cmd))
			add_command(o, self, head + 2 + strspn(head + 2, " \t"));
		return;
	}
	add_object(o, path);
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	while (e && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		GElf_Dyn d;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC || !(data = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; sh.sh_entsize && i < sh.sh_size / sh.sh_entsize && gelf_getdyn(data, i, &d); i++) {
			const char *name = d.d_tag == DT_NEEDED ? elf_strptr(e, sh.sh_link, d.d_un.d_val) : NULL;

			if (name && find_library(self, name, lib, sizeof(lib)))
				add_object(o, lib);
		}
	}
	if (e)
		elf_end(e);
	close(fd);
}

bool offcpu__needs_dwarf(const pid_t *pids, int n, const char *cmd, char *why, size_t whylen)
{
	struct objects *o = calloc(1, sizeof(*o)), *self = calloc(1, sizeof(*self));
	bool dwarf = false;

	if (!o || !self)
		goto out;
	each_exec_map(getpid(), add_mapped, self);
	if (cmd)
		add_command(o, self, cmd);
	for (int i = 0; i < n; i++)
		each_exec_map(pids[i], add_mapped, o);
	if (!cmd && !n)
		*o = *self;
	for (int i = 0; i < o->n && !dwarf; i++)
		if (elf__frame_pointers(o->path[i]) == 0) {
			snprintf(why, whylen, "%s has no frame pointers", o->path[i]);
			dwarf = true;
		}
out:
	free(o);
	free(self);
	return dwarf;
}
