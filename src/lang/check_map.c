// SPDX-License-Identifier: GPL-2.0
/*
 * check_map.c - the type rules of find(@m, key, $v), len() of a stack and the
 * tseries() aggregation (upstream bpftrace's newer map and time features).
 */
#include "lang/check_int.h"

#include <stdio.h>
#include <string.h>

/*
 * find(@m, key, $v): like has_key(@m, key), and when the key is there $v
 * becomes its value. $v takes the map's value type; an aggregation that
 * reduces to one number (count, sum, avg, min, max) gives that number, over
 * all CPUs, as a for loop over the map does. The variable is kept in n->x.
 */
struct type ck_find(struct ck *c, struct node *n)
{
	struct type none = ty_kind(TY_NONE, 0);
	struct node *mapn = n->args, *key = mapn->next, *var = key ? key->next : NULL;

	if (n->x) {	/* checked before (an earlier pass or attach point) */
		key = NULL;
		var = n->x;
	} else if (mapn->kind != N_MAP || mapn->i >= 0) {
		lang__error(c->prog, mapn->loc, "find() takes a whole map, a key and a variable, as in 'find(@m, k, $v)'");
		return none;
	}
	if (!n->x && (!var || var->kind != N_VAR || var->next)) {
		lang__error(c->prog, var ? var->loc : n->loc, "the third argument of find() is the scratch variable "
			    "the value goes to, as in 'find(@m, k, $v)'");
		return none;
	}
	if (!n->x) {	/* first pass: @m's node becomes @m[key...]; the variable moves to n->x */
		struct node *k = key;

		if (k->kind == N_TUPLE && !k->x)	/* find(@m, (k1, k2), $v) is @m[k1, k2] */
			k = k->args;
		else
			k->next = NULL;
		key->next = NULL;
		mapn->args = k;
		mapn->i = 0;
		for (; k; k = k->next)
			mapn->i++;
		mapn->next = NULL;
		n->x = var;
	}
	var = n->x;
	struct mapinfo *m = ck_map_get(c, mapn);

	if (m->nkeys == 0) {
		lang__error(c->prog, mapn->loc, "'%s' has no keys: find() looks a key up in a map with keys (read a "
			    "scalar map as '%s')", m->name, m->name);
		return none;
	}
	if (ck_map_keys(c, mapn))
		return none;
	if (m->val.kind == TY_NONE) {
		if (c->final) {
			lang__error(c->prog, mapn->loc, "'%s' is looked up but never assigned", m->name);
			return none;
		}
		return n->ty = ty_int(false, 64);
	}
	if (m->agg == AGG_HIST || m->agg == AGG_LHIST || m->agg == AGG_STATS || m->agg == AGG_TSERIES) {
		static const char *names[] = { [AGG_HIST] = "hist()", [AGG_LHIST] = "lhist()", [AGG_STATS] = "stats()",
					       [AGG_TSERIES] = "tseries()" };

		lang__error(c->prog, mapn->loc, "'%s' is a %s map: it has no single value per key for find() to give "
			    "(print it instead)", m->name, names[m->agg]);
		return none;
	}
	struct type t = m->agg != AGG_NONE ? ty_int(true, 64) : m->val;

	if (ck_assign_var(c, var, t, var->loc))
		return none;
	return n->ty = ty_int(false, 64);
}

/*
 * @m[k] = tseries(n, interval_ns, count[, "avg" | "max" | "min" | "sum"]):
 * the last count intervals of interval_ns each, keeping per interval the last
 * value (by default) or the average, maximum, minimum or sum of the values.
 * interval and count are constants; one map has one layout.
 */
struct type ck_tseries(struct ck *c, struct node *n, struct node *assign_to)
{
	static const char *modes[] = { [TS_LAST] = "", [TS_AVG] = "avg", [TS_MAX] = "max", [TS_MIN] = "min",
				       [TS_SUM] = "sum" };
	struct type none = ty_kind(TY_NONE, 0);
	struct node *v = n->args, *iv = v->next, *cnt = iv->next, *agg = cnt->next;
	struct mapinfo *m = assign_to->map;
	long long interval, count;
	int mode = TS_LAST;

	if (c->prog->cfg.unstable_tseries == 2) {
		lang__error(c->prog, n->loc, "tseries() is an unstable feature and config unstable_tseries = error "
			    "forbids it (warn or enable allow it)");
		return none;
	}
	if (v->ty.kind != TY_INT) {
		lang__error(c->prog, v->loc, "tseries() keeps integers: its first argument is one");
		return none;
	}
	if (!ck_is_const_int(iv, &interval) || interval <= 0) {
		lang__error(c->prog, iv->loc, "the interval of tseries() is a positive constant number of nanoseconds "
			    "(a duration such as 100ms or 1s)");
		return none;
	}
	if (!ck_is_const_int(cnt, &count) || count < 1 || count > 1000) {
		lang__error(c->prog, cnt->loc, "the number of intervals of tseries() is a constant from 1 to 1000");
		return none;
	}
	if (agg) {
		for (mode = TS_AVG; mode <= TS_SUM && (agg->kind != N_STR || strcmp(agg->s, modes[mode])); mode++)
			;
		if (mode > TS_SUM) {
			lang__error(c->prog, agg->loc, "the aggregation of tseries() is \"avg\", \"max\", \"min\" or \"sum\" "
				    "(without one, each interval keeps its last value)");
			return none;
		}
	}
	if (m->ts_count && (m->ts_interval != interval || m->ts_count != count || m->ts_mode != mode)) {
		lang__error(c->prog, n->loc, "'%s' is a tseries(n, %lld, %d%s%s%s) elsewhere: one map has one layout",
			    m->name, m->ts_interval, m->ts_count, m->ts_mode ? ", \"" : "", modes[m->ts_mode],
			    m->ts_mode ? "\"" : "");
		return none;
	}
	m->ts_interval = interval;
	m->ts_count = (int)count;
	m->ts_mode = mode;
	if (c->final && !c->prog->cfg.unstable_tseries && (!c->prog->warn || !strstr(c->prog->warn, "tseries() is unstable")))
		lang__warn(c->prog, n->loc, "tseries() is unstable in bpftrace (config unstable_tseries = enable "
			   "silences this warning, = error forbids it)");
	return n->ty = ty_kind(TY_AGG, 8);
}

/*
 * A tseries map's entries: the user's key and the interval's slot (epoch %
 * count) as the last 8 bytes of the key, a per-CPU value { epoch, value, aux }
 * (aux: the count of values, or for the last value its time; 0: empty).
 */
void ck_tseries_layout(struct program *prog, struct mapinfo *m)
{
	m->key_size += 8;	/* a scalar map's 8-byte key stays: gen_key() writes it */
	m->value_size = 24;
	m->bpf_type = 5;	/* BPF_MAP_TYPE_PERCPU_HASH */
	m->percpu = true;
	if ((int)m->max_entries < m->ts_count)
		m->max_entries = m->ts_count;
	if (prog->cfg.max_map_keys > (int)m->max_entries)
		m->max_entries = prog->cfg.max_map_keys;
}

const char *lang__config_tseries(struct program *prog, const char *val)
{
	static const char *vals[] = { "warn", "enable", "error" };

	for (int i = 0; i < 3; i++)
		if (!strcmp(val, vals[i])) {
			prog->cfg.unstable_tseries = i;
			return NULL;
		}
	return "unstable_tseries is error, warn or enable";
}

/*
 * len(kstack), len(ustack(3)): the depth of the stack taken here, in frames;
 * len($s), len(@s[k]) of a stored stack: the depth that stack values then
 * carry (their id's high half, gen_map.c). n->id: 1 taken here, 2 stored.
 */
struct type ck_stack_len(struct ck *c, struct node *n)
{
	struct node *a = n->args;
	struct type t = ck_expr(c, a);
	char b[64];

	if (c->prog->err)
		return ty_kind(TY_NONE, 0);
	if (t.kind != TY_KSTACK && t.kind != TY_USTACK) {
		lang__error(c->prog, a->loc, "len() takes a map ('len(@m)') or a stack (kstack, ustack), not a value "
			    "of type %s", type__str(&t, b, sizeof(b)));
		return ty_kind(TY_NONE, 0);
	}
	bool here = (a->kind == N_IDENT && (a->op == BV_KSTACK || a->op == BV_USTACK)) ||
		    (a->kind == N_CALL && (a->op == F_KSTACK || a->op == F_USTACK));

	if (!here && a->kind != N_VAR && a->kind != N_MAP) {
		lang__error(c->prog, a->loc, "len() takes a stack taken here (kstack, ustack(3)) or kept in a variable "
			    "or a map ($s, @s[k])");
		return ty_kind(TY_NONE, 0);
	}
	n->id = here ? 1 : 2;
	if (!here)
		c->prog->need_stack_len = true;
	c->prog->need_join = true;	/* its per-CPU buffer holds the frames bpf_get_stack() copies */
	return n->ty = ty_int(true, 64);
}
