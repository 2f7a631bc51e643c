// SPDX-License-Identifier: GPL-2.0
/* counter.c - perf_event_open counting; see counter.h */
#include "lib/event/counter.h"
#include "lib/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static int sys_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu,
			       int group_fd, unsigned long flags)
{
	return syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);
}

static int paranoid(void)
{
	int v;

	return util__read_int("/proc/sys/kernel/perf_event_paranoid", &v) ? 2 : v;
}

static int build_slots(struct counters *c, const struct target *t)
{
	int n = 0, cap = 0;

	if (t->system_wide) {
		c->slots = calloc(t->nr_cpus, sizeof(*c->slots));
		if (!c->slots)
			return -ENOMEM;
		for (int i = 0; i < t->nr_cpus; i++)
			c->slots[i] = (struct counter_slot){ -1, t->cpus[i] };
		c->nr_slots = t->nr_cpus;
		return 0;
	}
	if (t->child) {
		c->slots = calloc(1, sizeof(*c->slots));
		if (!c->slots)
			return -ENOMEM;
		c->slots[0] = (struct counter_slot){ t->child, -1 };
		c->nr_slots = 1;
		return 0;
	}
	for (int i = 0; i < t->nr_tids; i++) {
		if (n == cap) {
			struct counter_slot *ns;

			cap = cap ? cap * 2 : 16;
			ns = realloc(c->slots, cap * sizeof(*ns));
			if (!ns)
				return -ENOMEM;
			c->slots = ns;
		}
		c->slots[n++] = (struct counter_slot){ t->tids[i], -1 };
	}
	c->nr_slots = n;
	return n ? 0 : -ESRCH;
}

static bool is_unsupported(int e)
{
	return e == ENOENT || e == EOPNOTSUPP || e == ENODEV || e == EINVAL || e == ENOSYS;
}

int counters__open(struct counters *c, struct evlist *evl, const struct target *t,
		   char *err, size_t errlen)
{
	int rc, nev = evl->nr;

	memset(c, 0, sizeof(*c));
	c->evl = evl;
	rc = build_slots(c, t);
	if (rc) {
		snprintf(err, errlen, "no threads to count");
		return rc;
	}
	c->fd = malloc(sizeof(int) * nev * c->nr_slots);
	c->status = calloc(nev, sizeof(*c->status));
	c->open_errno = calloc(nev, sizeof(int));
	c->cur = calloc(nev * c->nr_slots, sizeof(*c->cur));
	c->prev = calloc(nev * c->nr_slots, sizeof(*c->prev));
	if (!c->fd || !c->status || !c->open_errno || !c->cur || !c->prev) {
		counters__close(c);
		return -ENOMEM;
	}
	for (int i = 0; i < nev * c->nr_slots; i++)
		c->fd[i] = -1;

	for (int e = 0; e < nev; e++) {
		struct event *ev = &evl->ev[e];
		struct perf_event_attr *a = &ev->attr;

		a->size = sizeof(*a);
		a->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
		a->disabled = 1;
		a->inherit = !t->system_wide;
		a->enable_on_exec = t->child != 0;
		/* a group member follows its leader */
		if (ev->leader >= 0 && ev->leader != e) {
			a->disabled = 0;
			a->enable_on_exec = 0;
		}
		for (int s = 0; s < c->nr_slots; s++) {
			int group_fd = -1, fd;

			if (ev->leader >= 0 && ev->leader != e) {
				group_fd = c->fd[ev->leader * c->nr_slots + s];
				if (group_fd < 0) {
					c->status[e] = CNT_NOT_SUPPORTED;
					c->open_errno[e] = c->open_errno[ev->leader];
					break;
				}
			}
retry:
			fd = sys_perf_event_open(a, c->slots[s].pid, c->slots[s].cpu, group_fd, PERF_FLAG_FD_CLOEXEC);
			if (fd >= 0) {
				c->fd[e * c->nr_slots + s] = fd;
				continue;
			}
			rc = errno;
			if ((rc == EACCES || rc == EPERM) && !a->exclude_kernel && !t->system_wide) {
				/* perf's fallback: count user space only where kernel counting is refused */
				a->exclude_kernel = 1;
				a->exclude_hv = 1;
				c->user_only_fallback = true;
				if (!strstr(ev->name, ":")) {
					char *nn;

					if (asprintf(&nn, "%s:u", ev->name) >= 0) {
						free(ev->name);
						ev->name = nn;
					}
				}
				goto retry;
			}
			if (rc == EACCES || rc == EPERM) {
				snprintf(err, errlen,
					 "cannot count '%s': permission denied (kernel.perf_event_paranoid=%d); "
					 "run as root, grant CAP_PERFMON, or lower /proc/sys/kernel/perf_event_paranoid",
					 ev->name, paranoid());
				counters__close(c);
				return -rc;
			}
			if (rc == ESRCH) {
				if (!t->child && !t->system_wide && c->nr_slots > 1) {
					/* a thread ended between listing and opening: drop it */
					continue;
				}
				snprintf(err, errlen, "cannot count '%s': the process %d is gone", ev->name, (int)c->slots[s].pid);
				counters__close(c);
				return -rc;
			}
			if (rc == EMFILE || rc == ENFILE) {
				snprintf(err, errlen,
					 "cannot count '%s': too many open files (%d events x %d slots); raise 'ulimit -n'",
					 ev->name, nev, c->nr_slots);
				counters__close(c);
				return -rc;
			}
			if (is_unsupported(rc) || rc == EBUSY) {
				c->status[e] = CNT_NOT_SUPPORTED;
				c->open_errno[e] = rc;
				for (int k = 0; k < s; k++) {
					close(c->fd[e * c->nr_slots + k]);
					c->fd[e * c->nr_slots + k] = -1;
				}
				break;
			}
			snprintf(err, errlen, "cannot count '%s': %s", ev->name, strerror(rc));
			counters__close(c);
			return -rc;
		}
	}
	return 0;
}

static int ioctl_all(struct counters *c, unsigned long req)
{
	int n = c->evl->nr * c->nr_slots;

	for (int i = 0; i < n; i++)
		if (c->fd[i] >= 0 && ioctl(c->fd[i], req, 0))
			return -errno;
	return 0;
}

int counters__enable(struct counters *c)
{
	return ioctl_all(c, PERF_EVENT_IOC_ENABLE);
}

int counters__disable(struct counters *c)
{
	return ioctl_all(c, PERF_EVENT_IOC_DISABLE);
}

int counters__read(struct counters *c)
{
	int n = c->evl->nr * c->nr_slots;

	memcpy(c->prev, c->cur, n * sizeof(*c->cur));
	for (int i = 0; i < n; i++) {
		uint64_t buf[3];
		ssize_t r;

		if (c->fd[i] < 0)
			continue;
		r = read(c->fd[i], buf, sizeof(buf));
		if (r != sizeof(buf))
			return r < 0 ? -errno : -EIO;
		c->cur[i] = (struct counter_val){ buf[0], buf[1], buf[2] };
	}
	return 0;
}

void counters__close(struct counters *c)
{
	if (c->fd && c->evl) {
		for (int i = 0; i < c->evl->nr * c->nr_slots; i++)
			if (c->fd[i] >= 0)
				close(c->fd[i]);
	}
	free(c->fd);
	free(c->status);
	free(c->open_errno);
	free(c->cur);
	free(c->prev);
	free(c->slots);
	c->fd = NULL;
	c->status = NULL;
	c->open_errno = NULL;
	c->cur = c->prev = NULL;
	c->slots = NULL;
	c->nr_slots = 0;
}

struct counter_val counters__get(const struct counters *c, int ev, int slot, bool delta)
{
	struct counter_val v = c->cur[ev * c->nr_slots + slot];

	if (delta) {
		struct counter_val p = c->prev[ev * c->nr_slots + slot];

		v.val -= p.val;
		v.ena -= p.ena;
		v.run -= p.run;
	}
	return v;
}

struct counter_val counters__sum(const struct counters *c, int ev, bool delta)
{
	struct counter_val sum = { 0, 0, 0 };

	for (int s = 0; s < c->nr_slots; s++) {
		struct counter_val v = counters__get(c, ev, s, delta);

		sum.val += v.val;
		sum.ena += v.ena;
		sum.run += v.run;
	}
	return sum;
}

double counter_val__scaled(struct counter_val v)
{
	if (!v.run || !v.ena)
		return -1;
	if (v.run >= v.ena)
		return (double)v.val;
	return (double)v.val * (double)v.ena / (double)v.run;
}
