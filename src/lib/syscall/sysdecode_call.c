// SPDX-License-Identifier: GPL-2.0
/*
 * sysdecode_call.c - one syscall as strace prints it: "name(args) = ret".
 * The arguments' kinds come from the table in syscalls.c; the memory behind
 * pointers is what the BPF side copied, by the plan sysdecode__capplan()
 * gives it (the same function tells the printer which copy is which).
 */
#include "lib/syscall/sysdecode.h"
#include "lib/syscall/sysdecode_int.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

int sysdecode__capplan(const struct syscall_desc *d, struct sc_cap caps[TRACE_NCAP])
{
	int n = 0;

	memset(caps, 0, sizeof(*caps) * TRACE_NCAP);
	if (!d)
		return 0;
	for (int i = 0; i < d->nargs && n < TRACE_NCAP; i++) {
		struct sc_cap c = { .arg = i };

		switch (d->args[i]) {
		case A_PATH: case A_STR: c.mode = CAP_STR; break;
		case A_BUFIN: case A_SOCKADDRIN: c.mode = CAP_BUF_IN; c.size = i + 1; break;
		case A_BUFOUT: case A_BUFOUTSTR: c.mode = CAP_BUF_RET; break;
		case A_STATOUT: c.mode = CAP_FIX_OUT; c.size = 144; break;
		case A_TSIN: c.mode = CAP_FIX_IN; c.size = 16; break;
		case A_TSOUT: c.mode = CAP_FIX_OUT; c.size = 16; break;
		case A_SOCKADDROUT: c.mode = CAP_FIX_OUT; c.size = 128; break;
		case A_IOVIN: c.mode = CAP_IOV_IN; c.size = i + 1; break;
		case A_IOVOUT: c.mode = CAP_IOV_RET; c.size = i + 1; break;
		case A_PIPEFDS: c.mode = CAP_BUF_ARGOUT; c.size = 8; break;
		case A_RLIMIN: c.mode = CAP_FIX_IN; c.size = 16; break;
		case A_RLIMOUT: c.mode = CAP_FIX_OUT; c.size = 16; break;
		case A_SIGACTIN: c.mode = CAP_FIX_IN; c.size = 32; break;
		case A_SIGACTOUT: c.mode = CAP_FIX_OUT; c.size = 32; break;
		case A_SIGSETIN: c.mode = CAP_FIX_IN; c.size = 8; break;
		case A_SIGSETOUT: c.mode = CAP_FIX_OUT; c.size = 8; break;
		case A_WSTATUS: c.mode = CAP_FIX_OUT; c.size = 4; break;
		case A_ARGV: c.mode = CAP_ARGV; break;
		case A_CLONEARGS: c.mode = CAP_FIX_IN; c.size = 88; break;	/* and *parent_tid at exit */
		case A_STATXOUT: c.mode = CAP_FIX_OUT; c.size = 256; break;
		case A_UTSNAME: c.mode = CAP_FIX_OUT; c.size = 390; break;
		case A_GIDLIST: c.mode = CAP_BUF_RET4; break;
		default: continue;
		}
		if (c.mode == CAP_IOV_IN || c.mode == CAP_IOV_RET) {
			if (n != 0)	/* an iovec takes both slots: the array and the data */
				continue;
			caps[n++] = c;
			break;
		}
		caps[n++] = c;
	}
	return n;
}

/* the copy of argument `arg`: its bytes, or NULL when it was not (or could not be) copied */
static const unsigned char *cap_of(const struct sc_event *ev, const struct sc_cap *caps, int ncap,
				   int arg, size_t *len, int *flags)
{
	for (int i = 0; i < ncap; i++) {
		if (caps[i].arg != arg)
			continue;
		*flags = ev->cap_flags[i];
		*len = ev->cap_len[i] > TRACE_CAP_MAX ? TRACE_CAP_MAX : ev->cap_len[i];
		if (ev->cap_flags[i] & CAPF_FAULT)
			return NULL;
		return ev->data[i];
	}
	return NULL;
}

static void ptr(struct sbuf *b, uint64_t v)
{
	if (v)
		sbuf__printf(b, "%#llx", (unsigned long long)v);
	else
		sbuf__puts(b, "NULL");
}

static bool failed(const struct sc_event *ev)
{
	return ev->type == TEV_SYSCALL && ev->ret < 0 && ev->ret >= -4095;
}

static uint64_t rd64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static uint32_t rd32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

void sysdecode__stat(struct sbuf *b, const unsigned char *p, size_t len)
{
	uint32_t mode;

	if (len < 144) {
		sbuf__puts(b, "{...}");
		return;
	}
	mode = rd32(p + 24);
	sbuf__puts(b, "{st_mode=");
	sysdecode__mode(b, mode);
	if ((mode & 0170000) == 0020000 || (mode & 0170000) == 0060000) {
		uint64_t dev = rd64(p + 40);
		unsigned maj = ((dev >> 8) & 0xfff) | ((dev >> 32) & ~0xfffu);
		unsigned min = (dev & 0xff) | ((dev >> 12) & ~0xffu);

		sbuf__printf(b, ", st_rdev=makedev(%#x, %#x), ...}", maj, min);
	} else {
		sbuf__printf(b, ", st_size=%lld, ...}", (long long)rd64(p + 48));
	}
}

void sysdecode__sockaddr(struct sbuf *b, const unsigned char *p, size_t len)
{
	unsigned fam;

	if (len < 2) {
		sbuf__puts(b, "{}");
		return;
	}
	fam = p[0] | p[1] << 8;
	sbuf__puts(b, "{sa_family=");
	sysdecode__value(b, fam, sdn_families, "%u");
	if (fam == 1) {
		size_t n = len - 2;

		if (n > 0 && p[2] == 0 && n > 1) {
			sbuf__puts(b, ", sun_path=@");
			sysdecode__quote(b, p + 3, n - 1, 108, false, 0);
		} else if (n > 0) {
			sbuf__puts(b, ", sun_path=");
			sysdecode__quote(b, p + 2, n, 108, false, SDQ_NUL_ENDS);
		}
	} else if (fam == 2 && len >= 8) {
		char a[INET_ADDRSTRLEN];

		inet_ntop(AF_INET, p + 4, a, sizeof(a));
		sbuf__printf(b, ", sin_port=htons(%u), sin_addr=inet_addr(\"%s\")", p[2] << 8 | p[3], a);
	} else if (fam == 10 && len >= 24) {
		char a[INET6_ADDRSTRLEN];

		inet_ntop(AF_INET6, p + 8, a, sizeof(a));
		sbuf__printf(b, ", sin6_port=htons(%u), sin6_flowinfo=htonl(%u), inet_pton(AF_INET6, \"%s\", &sin6_addr)",
			     p[2] << 8 | p[3], ntohl(rd32(p + 4)), a);
		if (len >= 28)
			sbuf__printf(b, ", sin6_scope_id=%u", rd32(p + 24));
	} else if (fam == 16 && len >= 12) {
		sbuf__printf(b, ", nl_pid=%u, nl_groups=%08x", rd32(p + 4), rd32(p + 8));
	} else if (len > 2) {
		sbuf__puts(b, ", sa_data=");
		sysdecode__quote(b, p + 2, len - 2, 14, false, 0);
	}
	sbuf__puts(b, "}");
}

static void timespec(struct sbuf *b, const unsigned char *p)
{
	sbuf__printf(b, "{tv_sec=%lld, tv_nsec=%lld}", (long long)rd64(p), (long long)rd64(p + 8));
}

static void rlim(struct sbuf *b, uint64_t v)
{
	if (v == ~0ull)
		sbuf__puts(b, "RLIM64_INFINITY");
	else if (v > 0 && v % 1024 == 0)
		sbuf__printf(b, "%llu*1024", (unsigned long long)(v / 1024));
	else
		sbuf__printf(b, "%llu", (unsigned long long)v);
}

static void sigaction(struct sbuf *b, const unsigned char *p)
{
	uint64_t h = rd64(p), fl = rd64(p + 8);

	sbuf__puts(b, "{sa_handler=");
	if (h == 0)
		sbuf__puts(b, "SIG_DFL");
	else if (h == 1)
		sbuf__puts(b, "SIG_IGN");
	else
		sbuf__printf(b, "%#llx", (unsigned long long)h);
	sbuf__puts(b, ", sa_mask=");
	sysdecode__sigset(b, rd64(p + 24));
	sbuf__puts(b, ", sa_flags=");
	sysdecode__flags(b, fl, sdn_sa_flags, NULL);
	if (fl & 0x04000000)
		sbuf__printf(b, ", sa_restorer=%#llx", (unsigned long long)rd64(p + 16));
	sbuf__puts(b, "}");
}

static void statx_flags(struct sbuf *b, uint64_t v)
{
	static const char *const sync[] = { "AT_STATX_SYNC_AS_STAT", "AT_STATX_FORCE_SYNC",
					    "AT_STATX_DONT_SYNC", "AT_STATX_SYNC_TYPE" };

	sbuf__puts(b, sync[(v >> 13) & 3]);
	v &= ~0x6000ull & 0xffffffffull;
	if (v) {
		sbuf__puts(b, "|");
		sysdecode__flags(b, v, sdn_at_flags, NULL);
	}
}

static void statx_struct(struct sbuf *b, const unsigned char *p)
{
	sbuf__puts(b, "{stx_mask=");
	sysdecode__flags(b, rd32(p), sdn_statx_masks, NULL);
	sbuf__puts(b, ", stx_attributes=");
	sysdecode__flags(b, rd64(p + 8), sdn_statx_attrs, NULL);
	sbuf__puts(b, ", stx_mode=");
	sysdecode__mode(b, p[28] | p[29] << 8);
	sbuf__printf(b, ", stx_size=%llu, ...}", (unsigned long long)rd64(p + 40));
}

static void fd(struct sbuf *b, uint64_t v)
{
	sbuf__printf(b, "%d", (int)v);
}

static void iovec(struct sbuf *b, const struct sc_event *ev, uint64_t cnt, bool out, const struct sysdecode_opts *o)
{
	size_t alen = ev->cap_len[0] > TRACE_CAP_MAX ? TRACE_CAP_MAX : ev->cap_len[0];
	size_t n = alen / 16, left = out ? (size_t)ev->ret : ~(size_t)0;
	int per = TRACE_CAP_MAX / 8;

	sbuf__puts(b, "[");
	for (size_t i = 0; i < n && i < cnt; i++) {
		uint64_t base = rd64(ev->data[0] + i * 16), len = rd64(ev->data[0] + i * 16 + 8);
		size_t show = len < left ? len : left;

		if (i)
			sbuf__puts(b, ", ");
		sbuf__puts(b, "{iov_base=");
		if (i < 8 && !(ev->cap_flags[1] & CAPF_FAULT)) {
			size_t got = show < (size_t)per ? show : (size_t)per;

			sysdecode__quote(b, ev->data[1] + i * per, got, o->strsize, show > got, 0);
		} else {
			ptr(b, base);
		}
		sbuf__printf(b, ", iov_len=%llu}", (unsigned long long)len);
		left -= show;
	}
	if (cnt > n)
		sbuf__puts(b, n ? ", ..." : "...");
	sbuf__puts(b, "]");
}

static void argv(struct sbuf *b, const unsigned char *p, size_t len, int flags, const struct sysdecode_opts *o)
{
	size_t i = 0;
	bool first = true;

	sbuf__puts(b, "[");
	while (i < len) {
		size_t n = strnlen((const char *)p + i, len - i);

		if (!first)
			sbuf__puts(b, ", ");
		first = false;
		sysdecode__quote(b, p + i, n, o->strsize, false, 0);
		i += n + 1;
	}
	if (flags & CAPF_MORE)
		sbuf__puts(b, first ? "..." : ", ...");
	sbuf__puts(b, "]");
}

static void one_arg(struct sbuf *b, const struct sc_event *ev, const struct syscall_desc *d, int i,
		    const struct sc_cap *caps, int ncap, const struct sysdecode_opts *o)
{
	uint64_t v = ev->args[i];
	const unsigned char *p;
	size_t len = 0;
	int fl = 0;

	p = cap_of(ev, caps, ncap, i, &len, &fl);
	switch (d->args[i]) {
	case A_INT: sbuf__printf(b, "%d", (int)v); break;
	case A_UINT: sbuf__printf(b, "%u", (unsigned)v); break;
	case A_LONG: sbuf__printf(b, "%lld", (long long)v); break;
	case A_ULONG: sbuf__printf(b, "%llu", (unsigned long long)v); break;
	case A_HEX: sbuf__printf(b, "%#llx", (unsigned long long)v); break;
	case A_OCT: case A_OPENMODE: sbuf__printf(b, "%#03o", (unsigned)v); break;
	case A_FD: fd(b, v); break;
	case A_DIRFD:
		if ((int)v == -100)
			sbuf__puts(b, "AT_FDCWD");
		else
			fd(b, v);
		break;
	case A_PATH:
		if (!v)
			sbuf__puts(b, "NULL");
		else if (!p)
			ptr(b, v);
		else
			sysdecode__quote(b, p, len, TRACE_CAP_MAX, fl & CAPF_MORE, SDQ_NUL_ENDS);
		break;
	case A_STR:
		if (!v)
			sbuf__puts(b, "NULL");
		else if (!p)
			ptr(b, v);
		else
			sysdecode__quote(b, p, len, o->strsize, fl & CAPF_MORE, SDQ_NUL_ENDS);
		break;
	case A_BUFIN: case A_BUFOUT: case A_BUFOUTSTR: {
		uint64_t total = d->args[i] == A_BUFIN ? ev->args[i + 1] : (uint64_t)ev->ret;

		if (!p || failed(ev) || (d->args[i] != A_BUFIN && ev->type != TEV_SYSCALL)) {
			ptr(b, v);
			break;
		}
		if (d->args[i] == A_BUFOUTSTR)
			sysdecode__quote(b, p, len, o->strsize, false, SDQ_NUL_ENDS);
		else
			sysdecode__quote(b, p, len, o->strsize, total > len,
					 d->nr == 318 ? SDQ_HEX : 0);	/* getrandom: strace forces hex */
		break;
	}
	case A_OPENFLAGS: sysdecode__open_flags(b, v); break;
	case A_ATFLAGS: sysdecode__flags(b, (unsigned)v, sdn_at_flags, NULL); break;
	case A_ACCESSMODE: sysdecode__flags(b, v, sdn_access_modes, "F_OK"); break;
	case A_WHENCE: sysdecode__value(b, v, sdn_whence, "%u"); break;
	case A_PROT: sysdecode__prot(b, v); break;
	case A_MMAPFLAGS: sysdecode__mmap_flags(b, v); break;
	case A_MREMAPFLAGS: sysdecode__flags(b, v, sdn_mremap_flags, NULL); break;
	case A_MADV: sysdecode__value(b, v, sdn_madv, "%d"); break;
	case A_SIGNUM: {
		const char *n = sysdecode__signame((int)v);

		if (n)
			sbuf__puts(b, n);
		else
			sbuf__printf(b, "%d", (int)v);
		break;
	}
	case A_SIGHOW: sysdecode__value(b, v, sdn_sighow, "%#x"); break;
	case A_SIGSETIN: case A_SIGSETOUT:
		if (!v)
			sbuf__puts(b, "NULL");
		else if (!p || len < 8 || (d->args[i] == A_SIGSETOUT && failed(ev)))
			ptr(b, v);
		else
			sysdecode__sigset(b, rd64(p));
		break;
	case A_SIGACTIN: case A_SIGACTOUT:
		if (!v)
			sbuf__puts(b, "NULL");
		else if (!p || len < 32 || (d->args[i] == A_SIGACTOUT && failed(ev)))
			ptr(b, v);
		else
			sigaction(b, p);
		break;
	case A_CLONEFLAGS: sysdecode__clone_flags(b, v); break;
	case A_WSTATUS:
		if (!v)
			sbuf__puts(b, "NULL");
		else if (!p || len < 4 || failed(ev) || ev->ret == 0)
			ptr(b, v);
		else
			sysdecode__wait_status(b, (int)rd32(p));
		break;
	case A_WOPTS: sysdecode__flags(b, (unsigned)v, sdn_wopts, NULL); break;
	case A_ARGV:
		if (!p)
			ptr(b, v);
		else
			argv(b, p, len, fl, o);
		break;
	case A_ENVP:
		ptr(b, v);
		if (v)
			sbuf__printf(b, " /* %u var%s */", ev->aux, ev->aux == 1 ? "" : "s");
		break;
	case A_AF: sysdecode__value(b, v, sdn_families, "%u"); break;
	case A_SOCKPROTO:	/* by family: IPPROTO_* for inet sockets, a number otherwise */
		if (ev->args[0] == 2 || ev->args[0] == 10)
			sysdecode__value(b, v, sdn_ipprotos, "%d");
		else
			sbuf__printf(b, "%d", (int)v);
		break;
	case A_FDFLAGS: sysdecode__flags(b, (unsigned)v, sdn_fd_flags, NULL); break;
	case A_SOCKTYPE:
		sysdecode__value(b, v & 0xf, sdn_socktypes, "%u");
		if (v & ~0xfull) {
			sbuf__puts(b, "|");
			sysdecode__flags(b, v & ~0xfull, sdn_sockflags, NULL);
		}
		break;
	case A_SOCKFLAGS: sysdecode__flags(b, v, sdn_sockflags, NULL); break;
	case A_MSGFLAGS: sysdecode__flags(b, (unsigned)v, sdn_msgflags, NULL); break;
	case A_SHUTHOW: sysdecode__value(b, v, sdn_shuthow, "%d"); break;
	case A_SOCKADDRIN: case A_SOCKADDROUT:
		if (!v)
			sbuf__puts(b, "NULL");
		else if (!p || (d->args[i] == A_SOCKADDROUT && failed(ev)))
			ptr(b, v);
		else
			sysdecode__sockaddr(b, p, d->args[i] == A_SOCKADDRIN ? len : 128);
		break;
	case A_STATOUT:
		if (!p || failed(ev))
			ptr(b, v);
		else
			sysdecode__stat(b, p, len);
		break;
	case A_TSIN: case A_TSOUT:
		if (!v)
			sbuf__puts(b, "NULL");
		else if (!p || len < 16 || (d->args[i] == A_TSOUT && failed(ev)))
			ptr(b, v);
		else
			timespec(b, p);
		break;
	case A_IOVIN: case A_IOVOUT:
		if (!p || (d->args[i] == A_IOVOUT && failed(ev)))
			ptr(b, v);
		else
			iovec(b, ev, ev->args[i + 1], d->args[i] == A_IOVOUT, o);
		break;
	case A_PIPEFDS:
		if (!p || len < 8 || failed(ev))
			ptr(b, v);
		else
			sbuf__printf(b, "[%d, %d]", (int)rd32(p), (int)rd32(p + 4));
		break;
	case A_RLIMRES: sysdecode__value(b, v, sdn_rlimits, "%d"); break;
	case A_RLIMIN: case A_RLIMOUT:
		if (!v)
			sbuf__puts(b, "NULL");
		else if (!p || len < 16 || (d->args[i] == A_RLIMOUT && failed(ev))) {
			ptr(b, v);
		} else {
			sbuf__puts(b, "{rlim_cur=");
			rlim(b, rd64(p));
			sbuf__puts(b, ", rlim_max=");
			rlim(b, rd64(p + 8));
			sbuf__puts(b, "}");
		}
		break;
	case A_ARCHPRCTL: sysdecode__value(b, v, sdn_archprctl, "%#x"); break;
	case A_CLOCKID: sysdecode__value(b, v, sdn_clocks, "%d"); break;
	case A_GRND: sysdecode__flags(b, v, sdn_grnd, NULL); break;
	case A_FCNTLCMD: sysdecode__value(b, v, sdn_fcntl_cmds, "%d"); break;
	case A_IOCTLCMD: sysdecode__value(b, (unsigned)v, sdn_ioctl_cmds, NULL); break;
	case A_STATXFLAGS: statx_flags(b, v); break;
	case A_STATXMASK: sysdecode__flags(b, (unsigned)v, sdn_statx_masks, "0"); break;
	case A_STATXOUT:
		if (!p || len < 48 || failed(ev))
			ptr(b, v);
		else
			statx_struct(b, p);
		break;
	case A_UTSNAME:
		if (!p || len < 130 || failed(ev)) {
			ptr(b, v);
		} else {
			sbuf__puts(b, "{sysname=");
			sysdecode__quote(b, p, 65, 65, false, SDQ_NUL_ENDS);
			sbuf__puts(b, ", nodename=");
			sysdecode__quote(b, p + 65, 65, 65, false, SDQ_NUL_ENDS);
			sbuf__puts(b, ", ...}");
		}
		break;
	case A_GIDLIST:		/* getgroups(size, list): the list when the call filled it */
		if (failed(ev) || (ev->args[0] && !p) || (ev->args[0] == 0 && ev->ret != 0 && !v)) {
			ptr(b, v);
		} else if (ev->args[0] == 0) {
			sbuf__puts(b, v ? "[]" : "NULL");
		} else {
			sbuf__puts(b, "[");
			for (size_t k = 0; k < (size_t)ev->ret && (k + 1) * 4 <= len; k++)
				sbuf__printf(b, "%s%u", k ? ", " : "", rd32(p + k * 4));
			if ((size_t)ev->ret * 4 > len)
				sbuf__puts(b, ", ...");
			sbuf__puts(b, "]");
		}
		break;
	case A_DIRENTS:		/* the BPF side counted the entries */
		ptr(b, v);
		if (!failed(ev) && ev->type == TEV_SYSCALL)
			sbuf__printf(b, " /* %u entries */", ev->aux);
		break;
	case A_FUTEXOP: {
		unsigned op = v & 0x7f;

		sysdecode__value(b, op, sdn_futex_ops, "%d");
		if (v & 128)
			sbuf__puts(b, "_PRIVATE");
		if (v & 256)
			sbuf__puts(b, "|FUTEX_CLOCK_REALTIME");
		break;
	}
	case A_PTR: default: ptr(b, v); break;
	}
}

/* strace leaves out arguments the call does not use */
static int shown_args(const struct sc_event *ev, const struct syscall_desc *d)
{
	switch (d->nr) {
	case 2: case 257:	/* open, openat: the mode only with O_CREAT or O_TMPFILE */
		return (ev->args[d->nr == 2 ? 1 : 2] & 020100100) ? d->nargs : d->nargs - 1;
	case 72: {		/* fcntl: no third argument for the getters */
		int cmd = (int)ev->args[1];

		return (cmd == 1 || cmd == 3 || cmd == 9 || cmd == 11 || cmd == 1025 || cmd == 1032 ||
			cmd == 1034) ? 2 : 3;
	}
	case 202: {		/* futex */
		unsigned op = ev->args[1] & 0x7f;

		return op == 1 || op == 7 || op == 8 ? 3 : op == 0 || op == 6 ? 4 : 6;
	}
	}
	return d->nargs;
}

static bool is_output(int kind)
{
	switch (kind) {
	case A_BUFOUT: case A_BUFOUTSTR: case A_STATOUT: case A_STATXOUT: case A_DIRENTS: case A_TSOUT: case A_SOCKADDROUT:
	case A_UTSNAME: case A_GIDLIST:
	case A_IOVOUT: case A_PIPEFDS: case A_RLIMOUT: case A_SIGACTOUT: case A_SIGSETOUT: case A_WSTATUS:
		return true;
	}
	return false;
}

/* clone: strace shows the stack and flags at entry, the tid pointers and tls with the result */
static void clone_call(struct sbuf *b, const struct sc_event *ev, enum sd_part part)
{
	uint64_t fl = ev->args[0];

	if (part != SD_RESUME) {
		sbuf__puts(b, "child_stack=");
		ptr(b, ev->args[1]);
		sbuf__puts(b, ", flags=");
		sysdecode__clone_flags(b, fl);
	}
	if (part == SD_ENTRY)
		return;
	if (fl & 0x100000)
		sbuf__printf(b, ", parent_tid=%#llx", (unsigned long long)ev->args[2]);
	if (fl & 0x1200000)
		sbuf__printf(b, ", child_tidptr=%#llx", (unsigned long long)ev->args[3]);
	if (fl & 0x80000)
		sbuf__printf(b, ", tls=%#llx", (unsigned long long)ev->args[4]);
}

/* clone3: struct clone_args at entry; the tid written through parent_tid with the result */
static void clone3_call(struct sbuf *b, const struct sc_event *ev, enum sd_part part)
{
	const unsigned char *a = ev->data[0];
	uint64_t fl;

	if (part != SD_RESUME) {
		if (ev->cap_len[0] < 64 || (ev->cap_flags[0] & CAPF_FAULT)) {
			ptr(b, ev->args[0]);
		} else {
			const char *sig = sysdecode__signame((int)rd64(a + 32));

			fl = rd64(a);
			sbuf__puts(b, "{flags=");
			sysdecode__clone_flags(b, fl & ~0xffull);
			if (fl & 0x1000)
				sbuf__printf(b, ", pidfd=%#llx", (unsigned long long)rd64(a + 8));
			if (fl & 0x1200000)
				sbuf__printf(b, ", child_tid=%#llx", (unsigned long long)rd64(a + 16));
			if (fl & 0x100000)
				sbuf__printf(b, ", parent_tid=%#llx", (unsigned long long)rd64(a + 24));
			if (sig)
				sbuf__printf(b, ", exit_signal=%s", sig);
			else
				sbuf__printf(b, ", exit_signal=%llu", (unsigned long long)rd64(a + 32));
			sbuf__puts(b, ", stack=");
			ptr(b, rd64(a + 40));
			sbuf__printf(b, ", stack_size=%#llx", (unsigned long long)rd64(a + 48));
			if (fl & 0x80000)
				sbuf__printf(b, ", tls=%#llx", (unsigned long long)rd64(a + 56));
			sbuf__puts(b, "}");
		}
	}
	if (part == SD_ENTRY)
		return;
	if (part == SD_RESUME)
		sbuf__puts(b, " ");
	if (ev->cap_len[0] >= 64 && (rd64(a) & 0x100000) && ev->cap_len[1] >= 4 && !failed(ev))
		sbuf__printf(b, "%s=> {parent_tid=[%d]}", part == SD_RESUME ? "" : " ", (int)rd32(ev->data[1]));
	sbuf__printf(b, ", %llu", (unsigned long long)ev->args[1]);
}

void sysdecode__call(struct sbuf *b, const struct sc_event *ev, const struct sysdecode_opts *o, enum sd_part part)
{
	const struct syscall_desc *d = syscall__by_nr(ev->nr);
	struct sc_cap caps[TRACE_NCAP];
	int ncap, n, k, from, to;

	if (!d) {
		if (part != SD_RESUME) {
			sbuf__printf(b, "syscall_%#x(", ev->nr);
			for (int i = 0; i < 6; i++)
				sbuf__printf(b, "%s%#llx", i ? ", " : "", (unsigned long long)ev->args[i]);
		}
		if (part != SD_ENTRY)
			sbuf__puts(b, ")");
		return;
	}
	if (part != SD_RESUME)
		sbuf__printf(b, "%s(", d->name);
	if (d->nr == 56) {
		clone_call(b, ev, part);
	} else if (d->nr == 435) {
		clone3_call(b, ev, part);
	} else if (d->nr == 15) {	/* rt_sigreturn: the mask it restores, read from the signal frame */
		if (ev->cap_len[0] >= 8 && part != SD_RESUME) {
			sbuf__puts(b, "{mask=");
			sysdecode__sigset(b, rd64(ev->data[0]));
			sbuf__puts(b, "}");
		}
	} else {
		ncap = sysdecode__capplan(d, caps);
		n = shown_args(ev, d);
		for (k = 0; k < n && !is_output(d->args[k]); k++)
			;
		from = part == SD_RESUME ? k : 0;
		to = part == SD_ENTRY ? k : n;
		for (int i = from; i < to; i++) {
			if (i > from)
				sbuf__puts(b, ", ");
			if (d->nr == 72 && i == 2) {	/* fcntl's argument by command */
				int cmd = (int)ev->args[1];

				if (cmd == 2)
					sysdecode__flags(b, ev->args[2], (const struct sd_name[]){ { 1, "FD_CLOEXEC" }, { 0, NULL } }, NULL);
				else if (cmd == 4)
					sysdecode__open_flags(b, ev->args[2]);
				else if (cmd == 5 || cmd == 6 || cmd == 7)
					ptr(b, ev->args[2]);
				else
					sbuf__printf(b, "%d", (int)ev->args[2]);
				continue;
			}
			one_arg(b, ev, d, i, caps, ncap, o);
		}
		if (part == SD_ENTRY && k < n && k > 0)
			sbuf__puts(b, ", ");
	}
	if (part != SD_ENTRY)
		sbuf__puts(b, ")");
}

void sysdecode__ret(struct sbuf *b, const struct sc_event *ev)
{
	const struct syscall_desc *d = syscall__by_nr(ev->nr);
	long long r = ev->ret;

	if (ev->type != TEV_SYSCALL || (d && d->ret == R_NONE)) {
		sbuf__puts(b, "= ?");
		return;
	}
	if (r < 0 && r >= -4095) {
		const char *n = sysdecode__errno_name((int)-r);

		if (n)
			sbuf__printf(b, "= -1 %s (%s)", n, sysdecode__strerror((int)-r));
		else
			sbuf__printf(b, "= -1 (errno %lld)", -r);
		return;
	}
	if (d && d->ret == R_HEX) {
		sbuf__printf(b, "= %#llx", (unsigned long long)r);
		return;
	}
	if (d && d->ret == R_OCT) {
		sbuf__printf(b, "= %#03llo", (unsigned long long)r);
		return;
	}
	if (d && d->nr == 72) {		/* fcntl F_GETFD, F_GETFL */
		int cmd = (int)ev->args[1];

		if (cmd == 1 && r >= 0) {
			sbuf__printf(b, "= %#llx", r);
			if (r)
				sbuf__puts(b, r == 1 ? " (flags FD_CLOEXEC)" : "");
			return;
		}
		if (cmd == 3 && r >= 0) {
			sbuf__printf(b, "= %#llx (flags ", r);
			sysdecode__open_flags(b, r);
			sbuf__puts(b, ")");
			return;
		}
	}
	sbuf__printf(b, "= %lld", r);
}
