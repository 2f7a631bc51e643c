/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktypes.h - the kernel's C types for the probe language, read from BTF
 * (/sys/kernel/btf/vmlinux through libbpf): struct and union members with
 * their offsets, pointers, arrays, bitfields, and the parameters of kernel
 * functions for fentry/fexit. The BTF is loaded on first use and owned by the
 * program (freed by lang__free()); the types handed back live in its arena.
 */
#ifndef SONDE_LANG_KTYPES_H
#define SONDE_LANG_KTYPES_H

#include "lang/lang.h"

struct btf;

/* curtask's type before BTF is read: the btf_id of a struct task_struct not looked up yet */
enum { KTYPES_TASK_STRUCT = -2 };

/*
 * Lay out the script's own structs (prog->cstructs) as BTF types added to the
 * kernel's (or, without kernel BTF, on their own): 0, or -1 after lang__error.
 */
int ktypes__script(struct program *p);
/* the program's own BTF, to add types to (split from the kernel's, or on its own); NULL with errno */
struct btf *ktypes__own(struct program *p);

/* the kernel's BTF, loaded once per program; NULL with a message in err when the kernel has none */
struct btf *ktypes__btf(struct program *p, char *err, size_t errlen);

/*
 * The language's type for BTF type `id`: integers and enums are TY_INT,
 * pointers TY_INT with .ptr set, char arrays TY_STR, structs, unions and
 * other arrays TY_STRUCT (an address, read member by member). `user` says
 * which address space pointers into it point to. 0, or -1 with a message.
 */
int ktypes__type(struct program *p, int id, bool user, struct type *out, char *err, size_t errlen);

/* "struct task_struct", "union x", "task_struct": the BTF id, or -1 */
int ktypes__find(struct program *p, const char *name);

/*
 * The member `name` of the struct/union `id` (anonymous members searched
 * through): its byte offset, bitfield (bit offset in its byte, bit size: 0 if
 * none) and its type id. 0, or -ENOENT.
 */
int ktypes__member(struct program *p, int id, const char *name, int *off, int *bitoff, int *bitsize, int *type_id);

/* the element type of array type `id` and its count; 0 or -EINVAL */
int ktypes__array(struct program *p, int id, int *elem_id, int *nelems);

/* a struct/union/array's size in bytes, or -1 */
int ktypes__size(struct program *p, int id);

/* "struct task_struct" for messages */
const char *ktypes__name(struct program *p, int id, char *buf, size_t len);

/*
 * The kernel function `name` (BTF_KIND_FUNC): its BTF id, and its FUNC_PROTO's
 * id for ktypes__param(); -ENOENT when BTF has no such function.
 */
int ktypes__func(struct program *p, const char *name, int *func_id, int *proto_id);
/* the number of parameters of a FUNC_PROTO */
int ktypes__nparams(struct program *p, int proto_id);
/* parameter `name` of proto: its index and type id; -ENOENT */
int ktypes__param(struct program *p, int proto_id, const char *name, int *index, int *type_id);
/* the return type id of proto (0: void) */
int ktypes__ret(struct program *p, int proto_id);

/* the type checker's rules for kernel types (check_btf.c) */
struct ap_inst;
struct type ckbtf__curtask(struct program *p);
struct type ckbtf__cast(struct program *p, struct ap_inst *in, struct node *n, const struct type *a, int bits, bool sign);
struct type ckbtf__field(struct program *p, struct node *n, const struct type *bt);
struct type ckbtf__deref(struct program *p, struct ap_inst *in, struct node *n, const struct type *a);
struct type ckbtf__index(struct program *p, struct node *n, const struct type *a, const struct type *i);
int ckbtf__sizeof(struct program *p, const char *name);
/* offsetof(type, a.b): the byte offset, or -1 after an error at n */
long long ckbtf__offsetof(struct program *p, struct node *n, const char *type, const char *members);
/* has_field(struct x, a.b): 1 if the script's or the kernel's type has that member path, else 0 */
int ckbtf__has_field(struct program *p, const char *type, const char *members);
/* a tracepoint field's C type "struct x *" as a typed pointer; -1 when it is not one BTF knows */
int ckbtf__tp_ptr(struct program *p, const char *ctype, bool user, struct type *out);
/* the value of the enumerator `name` in the kernel's BTF (TCP_ESTABLISHED); -ENOENT */
int ktypes__enum_value(struct program *p, const char *name, long long *value);
/* args.name in a uprobe: its parameter's register, typed from the binary's DWARF */
struct type ckbtf__uprobe_arg(struct program *p, struct ap_inst *in, struct node *n);
/* args.name in fentry/fexit (name NULL: the return value in fexit) */
struct type ckbtf__fentry_arg(struct program *p, struct ap_inst *in, struct node *n, const char *name);
struct type ckbtf__rawtp_arg(struct program *p, struct ap_inst *in, struct node *n);

#endif
