// SPDX-License-Identifier: GPL-2.0
/*
 * usdt.c - read the USDT probes of an ELF file: SystemTap's notes (owner
 * "stapsdt", type 3) in .note.stapsdt each describe one probe location: its
 * address, the link-time address of .stapsdt.base (prelink moves both, so the
 * difference corrects the address), the semaphore's address, then the
 * provider, the name and the argument specs as the assembler wrote them.
 */
#include "lib/symbol/elfsym.h"
#include "lib/symbol/usdt.h"
#include "lib/util.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NT_STAPSDT 3

/* x86-64 registers by pt_regs offset / 8: their names 8, 4, 2 and 1 bytes wide, then the high byte's */
static const struct reg_names {
	const char *name[5];
	int8_t idx;
} reg_names[] = {
	{ { "rax", "eax", "ax", "al", "ah" }, 10 },
	{ { "rbx", "ebx", "bx", "bl", "bh" }, 5 },
	{ { "rcx", "ecx", "cx", "cl", "ch" }, 11 },
	{ { "rdx", "edx", "dx", "dl", "dh" }, 12 },
	{ { "rsi", "esi", "si", "sil" }, 13 },
	{ { "rdi", "edi", "di", "dil" }, 14 },
	{ { "rbp", "ebp", "bp", "bpl" }, 4 },
	{ { "rsp", "esp", "sp", "spl" }, 19 },
	{ { "r8", "r8d", "r8w", "r8b" }, 9 },
	{ { "r9", "r9d", "r9w", "r9b" }, 8 },
	{ { "r10", "r10d", "r10w", "r10b" }, 7 },
	{ { "r11", "r11d", "r11w", "r11b" }, 6 },
	{ { "r12", "r12d", "r12w", "r12b" }, 3 },
	{ { "r13", "r13d", "r13w", "r13b" }, 2 },
	{ { "r14", "r14d", "r14w", "r14b" }, 1 },
	{ { "r15", "r15d", "r15w", "r15b" }, 0 },
	{ { "rip" }, 16 },
};

/* a register as an operand names it: pt_regs offset / 8, shift (%ah..%dh), width in bytes */
struct reg {
	int8_t idx, shift, width;
};

int usdt__reg_offset(int reg)
{
	return reg * 8;
}

/* "%name" at *p into *r, *p moved past it; false if none */
static bool parse_reg(const char **p, const char *end, struct reg *r)
{
	static const int8_t width[5] = { 8, 4, 2, 1, 1 };
	const char *s = *p;
	size_t n = 0;

	if (s >= end || *s != '%')
		return false;
	s++;
	while (s + n < end && isalnum((unsigned char)s[n]))
		n++;
	for (size_t i = 0; i < sizeof(reg_names) / sizeof(reg_names[0]); i++)
		for (int w = 0; w < 5 && reg_names[i].name[w]; w++) {
			const char *nm = reg_names[i].name[w];

			if (strlen(nm) == n && !memcmp(nm, s, n)) {
				*r = (struct reg){ reg_names[i].idx, w == 4 ? 8 : 0, width[w] };
				*p = s + n;
				return true;
			}
		}
	return false;
}

/* a decimal or 0x number with an optional sign; false if none */
static bool parse_num(const char **p, const char *end, int64_t *v)
{
	const char *s = *p;
	bool neg = false;
	uint64_t x = 0;
	int base = 10, nd = 0;

	if (s < end && (*s == '-' || *s == '+'))
		neg = *s++ == '-';
	if (end - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	for (; s < end; s++, nd++) {
		int d;

		if (isdigit((unsigned char)*s))
			d = *s - '0';
		else if (base == 16 && isxdigit((unsigned char)*s))
			d = tolower((unsigned char)*s) - 'a' + 10;
		else
			break;
		x = x * base + d;	/* wraps like the assembler's 64-bit arithmetic */
	}
	if (!nd)
		return false;
	*v = neg ? (int64_t)(0 - x) : (int64_t)x;
	*p = s;
	return true;
}

int usdt__parse_arg(const char *spec, size_t len, struct usdt_arg *a, char *err, size_t errlen)
{
	const char *p = spec, *end = spec + len, *at = memchr(spec, '@', len);
	struct reg r;

	memset(a, 0, sizeof(*a));
	a->reg = a->index = -1;
	a->scale = 1;
	if (at) {	/* "-4@": the size and signedness */
		int64_t sz;

		if (*p == '-') {
			a->sign = true;
			p++;
		}
		if (!parse_num(&p, at, &sz) || p != at || (sz != 1 && sz != 2 && sz != 4 && sz != 8) || *p == '-') {
			snprintf(err, errlen, "bad size in argument '%.*s' (1, 2, 4 or 8, '-' when signed)", (int)len, spec);
			return -EINVAL;
		}
		a->size = (uint8_t)sz;
		p = at + 1;
	}
	if (p < end && *p == '$') {	/* a constant */
		p++;
		a->kind = USDT_ARG_CONST;
		if (!parse_num(&p, end, &a->val) || p != end)
			goto bad;
		if (!a->size) {
			a->size = 8;
			a->sign = true;
		}
		return 0;
	}
	if (p < end && *p == '%') {
		bool named = parse_reg(&p, end, &r);

		if (!named || p != end || r.idx == 16) {
			if (named && p < end && *p == ':') {
				snprintf(err, errlen, "segment-relative argument '%.*s' is not supported", (int)len, spec);
				return -EOPNOTSUPP;
			}
			goto bad;
		}
		a->kind = USDT_ARG_REG;
		a->reg = r.idx;
		a->reg_shift = r.shift;
		if (!a->size)
			a->size = (uint8_t)r.width;
		return 0;
	}
	/* memory: [disp | sym[+-N]](%base[,%index[,scale]]), or an absolute address */
	a->kind = USDT_ARG_MEM;
	if (p < end && (isalpha((unsigned char)*p) || *p == '_' || *p == '.')) {
		size_t n = 0;

		while (p + n < end && (isalnum((unsigned char)p[n]) || p[n] == '_' || p[n] == '.' || p[n] == '$' || p[n] == '@'))
			n++;
		if (n >= sizeof(a->sym)) {
			snprintf(err, errlen, "symbol too long in argument '%.*s'", (int)len, spec);
			return -EINVAL;
		}
		memcpy(a->sym, p, n);
		a->sym[n] = 0;
		a->kind = USDT_ARG_RIP;
		p += n;
		if (p < end && (*p == '+' || *p == '-') && !parse_num(&p, end, &a->val))
			goto bad;
	} else if (p < end && *p != '(') {
		if (!parse_num(&p, end, &a->val))
			goto bad;
	}
	if (!a->size)
		a->size = 8;
	if (p == end)	/* an absolute address (non-PIE), or a symbol's */
		return 0;
	if (*p++ != '(')
		goto bad;
	if (p < end && *p == '%') {
		if (!parse_reg(&p, end, &r) || r.width != 8)
			goto bad;
		if (r.idx == 16) {	/* %rip: only with a symbol (its displacement is relative to the next insn) */
			if (a->kind != USDT_ARG_RIP)
				goto bad;
		} else {
			if (a->kind == USDT_ARG_RIP)
				goto bad;
			a->reg = r.idx;
		}
	} else if (a->kind == USDT_ARG_RIP) {
		goto bad;
	}
	if (p < end && *p == ',') {
		int64_t sc = 1;

		p++;
		if (!parse_reg(&p, end, &r) || r.width != 8 || r.idx == 16 || r.idx == 19 || a->kind == USDT_ARG_RIP)
			goto bad;
		a->index = r.idx;
		if (p < end && *p == ',') {
			p++;
			if (!parse_num(&p, end, &sc) || (sc != 1 && sc != 2 && sc != 4 && sc != 8))
				goto bad;
		}
		a->scale = (uint8_t)sc;
	}
	if (p == end || *p++ != ')' || p != end || (a->reg < 0 && a->index < 0 && a->kind == USDT_ARG_MEM))
		goto bad;
	return 0;
bad:
	snprintf(err, errlen, "cannot parse argument '%.*s'", (int)len, spec);
	return -EINVAL;
}

int usdt__parse_args(const char *s, struct usdt_arg *args, int max, char *err, size_t errlen)
{
	int n = 0;

	for (;;) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			return n;
		size_t len = strcspn(s, " \t");

		if (n >= max) {
			snprintf(err, errlen, "more than %d arguments", max);
			return -EINVAL;
		}
		int rc = usdt__parse_arg(s, len, &args[n], err, errlen);

		if (rc)
			return rc;
		n++;
		s += len;
	}
}

static uint64_t get_addr(const unsigned char *p, bool is64)
{
	uint64_t v = 0;

	memcpy(&v, p, is64 ? 8 : 4);	/* little endian: x86-64 only */
	return v;
}

/* the next NUL-terminated string in [*p, end) into buf; false if none */
static bool take_str(const char **p, const char *end, char *buf, size_t size)
{
	const char *z = memchr(*p, 0, end - *p);

	if (!z)
		return false;
	snprintf(buf, size, "%s", *p);
	*p = z + 1;
	return true;
}

int usdt__parse_notes(const void *data, size_t len, bool is64,
		      int (*cb)(const struct usdt_probe *p, void *ctx), void *ctx)
{
	const unsigned char *d = data;
	size_t off = 0, asz = is64 ? 8 : 4;
	int n = 0;
	struct usdt_probe *pr = malloc(sizeof(*pr));

	if (!pr)
		return -ENOMEM;
	while (len - off >= 12) {
		uint32_t namesz, descsz, type;

		memcpy(&namesz, d + off, 4);
		memcpy(&descsz, d + off + 4, 4);
		memcpy(&type, d + off + 8, 4);
		off += 12;
		size_t nlen = ((size_t)namesz + 3) & ~(size_t)3, dlen = ((size_t)descsz + 3) & ~(size_t)3;

		if (nlen > len - off || dlen > len - off - nlen) {
			n = -EINVAL;
			break;
		}
		const char *name = (const char *)d + off;
		const char *desc = name + nlen, *dend = desc + descsz;

		off += nlen + dlen;
		if (type != NT_STAPSDT || namesz != 8 || memcmp(name, "stapsdt", 8))
			continue;
		if (descsz < 3 * asz) {
			n = -EINVAL;
			break;
		}
		memset(pr, 0, sizeof(*pr));
		pr->pc = get_addr((const unsigned char *)desc, is64);
		pr->base = get_addr((const unsigned char *)desc + asz, is64);
		pr->sem = get_addr((const unsigned char *)desc + 2 * asz, is64);
		const char *s = desc + 3 * asz;

		if (!take_str(&s, dend, pr->provider, sizeof(pr->provider)) ||
		    !take_str(&s, dend, pr->name, sizeof(pr->name)) ||
		    !take_str(&s, dend, pr->args, sizeof(pr->args))) {
			n = -EINVAL;
			break;
		}
		pr->pc_addr = pr->pc;
		pr->sem_addr = pr->sem;
		int na = usdt__parse_args(pr->args, pr->arg, USDT_MAX_ARGS, pr->err, sizeof(pr->err));

		pr->nargs = na < 0 ? 0 : na;
		if (na >= 0)
			pr->err[0] = 0;
		int rc = cb(pr, ctx);

		if (rc < 0) {
			n = rc;
			break;
		}
		n++;
	}
	free(pr);
	return n;
}

struct collect {
	struct usdt_probe *v;
	int n;
	size_t cap;
};

static int collect_one(const struct usdt_probe *p, void *ctx)
{
	struct collect *c = ctx;

	if (util__grow(&c->v, &c->cap, (size_t)c->n + 1, sizeof(*c->v), 16))
		return -ENOMEM;
	c->v[c->n++] = *p;
	return 0;
}

struct sym_find {
	const char *name;
	uint64_t addr;
};

static int sym_match(const char *nm, const GElf_Sym *s, void *ctx)
{
	struct sym_find *f = ctx;

	if (strcmp(nm, f->name))
		return 0;
	f->addr = s->st_value;
	return 1;
}

static int sym_addr(Elf *e, const char *name, uint64_t *addr)
{
	struct sym_find f = { .name = name };

	if (!elfsym__each(e, sym_match, &f))
		return -ENOENT;
	*addr = f.addr;
	return 0;
}

static int read_elf(Elf *e, struct collect *c, char *err, size_t errlen)
{
	size_t shstrndx;
	GElf_Ehdr eh;
	uint64_t base_addr = 0;
	bool have_base = false, is64;

	if (!gelf_getehdr(e, &eh) || elf_getshdrstrndx(e, &shstrndx)) {
		snprintf(err, errlen, "not a readable ELF file: %s", elf_errmsg(-1));
		return -EINVAL;
	}
	if (eh.e_machine != EM_X86_64) {
		snprintf(err, errlen, "USDT arguments are read on x86-64 only (this file is for machine %d)", eh.e_machine);
		return -EOPNOTSUPP;
	}
	is64 = gelf_getclass(e) == ELFCLASS64;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(e, scn));) {
		GElf_Shdr sh;
		const char *nm;

		if (!gelf_getshdr(scn, &sh) || !(nm = elf_strptr(e, shstrndx, sh.sh_name)))
			continue;
		if (!strcmp(nm, ".stapsdt.base")) {
			base_addr = sh.sh_addr;
			have_base = true;
		} else if (sh.sh_type == SHT_NOTE && !strcmp(nm, ".note.stapsdt")) {
			Elf_Data *d = elf_rawdata(scn, NULL);
			int rc;

			if (!d || !d->d_buf)
				continue;
			rc = usdt__parse_notes(d->d_buf, d->d_size, is64, collect_one, c);
			if (rc < 0) {
				snprintf(err, errlen, rc == -ENOMEM ? "out of memory" : "malformed .note.stapsdt section");
				return rc;
			}
		}
	}
	for (int i = 0; i < c->n; i++) {
		struct usdt_probe *p = &c->v[i];

		if (have_base && p->base) {	/* prelink moved the file: move the probe as much */
			p->pc_addr = p->pc + (base_addr - p->base);
			if (p->sem)
				p->sem_addr = p->sem + (base_addr - p->base);
		}
		if (elfsym__file_offset(e, p->pc_addr, true, &p->offset)) {
			snprintf(err, errlen, "probe %s:%s at 0x%llx is in no executable segment", p->provider, p->name,
				 (unsigned long long)p->pc_addr);
			return -EINVAL;
		}
		if (p->sem_addr && elfsym__file_offset(e, p->sem_addr, false, &p->sem_offset)) {
			snprintf(err, errlen, "the semaphore of probe %s:%s at 0x%llx is in no loaded segment",
				 p->provider, p->name, (unsigned long long)p->sem_addr);
			return -EINVAL;
		}
		for (int j = 0; j < p->nargs && !p->err[0]; j++) {
			struct usdt_arg *a = &p->arg[j];
			uint64_t s;

			if (a->kind != USDT_ARG_RIP)
				continue;
			if (sym_addr(e, a->sym, &s))
				snprintf(p->err, sizeof(p->err), "argument %d names '%s', which is not in the symbol table", j, a->sym);
			else
				a->addr = s + (uint64_t)a->val;
		}
	}
	return 0;
}

int usdt__read(const char *path, struct usdt_probe **probes, int *n, char *err, size_t errlen)
{
	struct collect c = { 0 };
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc;
	Elf *e;

	*probes = NULL;
	*n = 0;
	if (fd < 0) {
		rc = -errno;
		snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
		return rc;
	}
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF) {
		snprintf(err, errlen, "'%s' is not an ELF file", path);
		rc = -ENOEXEC;
	} else {
		rc = read_elf(e, &c, err, errlen);
	}
	if (e)
		elf_end(e);
	close(fd);
	if (rc) {
		free(c.v);
		return rc;
	}
	*probes = c.v;
	*n = c.n;
	return 0;
}

void usdt__free(struct usdt_probe *probes)
{
	free(probes);
}
