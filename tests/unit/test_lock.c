// SPDX-License-Identifier: GPL-2.0
/*
 * test_lock.c - `sonde lock`'s pure parts: kernel data symbols and lock text
 * from a made-up kallsyms, the caller past the lock functions, perf lock
 * contention's time cells and table (the golden rows follow perf 6.1's
 * output on this machine), sorting and merging rows.
 */
#include "unit.h"
#include "lib/bpf/bpf_lock.h"
#include "lib/symbol/kdata.h"
#include "lib/symbol/symbol.h"
#include "ui/lock_print.h"

#include <stdlib.h>
#include <unistd.h>

static const char kallsyms[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81000100 T vm_mmap_pgoff\n"
	"ffffffff81000300 t try_to_wake_up\n"
	"ffffffff821f84a0 T __sched_text_start\n"
	"ffffffff821fd5e0 t rwsem_down_write_slowpath\n"
	"ffffffff82200fb7 T __sched_text_end\n"
	"ffffffff82200fc0 T __lock_text_start\n"
	"ffffffff82200fd0 T _raw_spin_lock_irqsave\n"
	"ffffffff82202a08 T __lock_text_end\n"
	"ffffffff83000000 D __start_init_stack\n"
	"ffffffff83100000 d file_systems_lock\n"
	"ffffffff83100008 b rcu_state\n"
	"ffffffff83100800 t after_rcu_state\n"
	"0000000000001000 D per_cpu_thing\n";

/* the made-up kallsyms in a file of its own; the test unlinks it */
static char *write_kallsyms(void)
{
	static char path[64];
	int fd;

	snprintf(path, sizeof(path), "/tmp/sonde-test-kallsyms.XXXXXX");
	fd = mkstemp(path);

	if (fd < 0 || write(fd, kallsyms, sizeof(kallsyms) - 1) != (ssize_t)sizeof(kallsyms) - 1)
		return NULL;
	close(fd);
	return path;
}

TEST(lock_kdata_names_globals)
{
	char *path = write_kallsyms();
	struct kdata *k = NULL;
	uint64_t off = 99;

	CHECK(path);
	CHECK_INT(kdata__load(&k, path), 0);
	CHECK_STR(kdata__name(k, 0xffffffff83100000ULL, &off), "file_systems_lock");
	CHECK_INT(off, 0);
	CHECK_STR(kdata__name(k, 0xffffffff83100040ULL, &off), "rcu_state");
	CHECK_INT(off, 0x38);
	CHECK(!kdata__name(k, 0xffffffff83100900ULL, &off));	/* past it, text starts: not data */
	CHECK(!kdata__name(k, 0xffffffff83000010ULL, &off));	/* a section marker is not a name */
	CHECK(!kdata__name(k, 0xffff888100000000ULL, &off));	/* the heap, below the kernel's text */
	CHECK(!kdata__has_data(k));	/* two data symbols are markers' numbers, not a kernel's */
	CHECK(kdata__lock_text(k, 0xffffffff82200fd5ULL));
	CHECK(kdata__lock_text(k, 0xffffffff821fd600ULL));
	CHECK(!kdata__lock_text(k, 0xffffffff81000110ULL));
	CHECK(!kdata__lock_text(k, 0xffffffff82202a08ULL));
	kdata__free(k);
	unlink(path);
}

TEST(lock_caller_skips_lock_text)
{
	char *path = write_kallsyms();
	uint64_t ips[] = { 0xffffffff82201d7eULL, 0xffffffff821fd620ULL, 0xffffffff81000150ULL, 0xffffffff81000310ULL };
	struct kdata *k = NULL;

	CHECK(path);
	CHECK_INT(kdata__load(&k, path), 0);
	CHECK_INT(lock__caller(k, ips, 4), 2);
	CHECK_INT(lock__caller(k, ips, 2), 2);	/* all lock text: none */
	CHECK_INT(lock__caller(NULL, ips, 4), 0);
	kdata__free(k);
	unlink(path);
}

static char *capture_time(unsigned long long ns)
{
	static char buf[64];
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	lock_print__time(f, ns, 12);
	fclose(f);
	return buf;
}

TEST(lock_time_cells_as_perf)
{
	CHECK_STR(capture_time(762), "      762 ns");
	CHECK_STR(capture_time(332020), "   332.02 us");
	CHECK_STR(capture_time(386840000), "   386.84 ms");
	CHECK_STR(capture_time(1500000000ULL), "     1.50 s ");
	CHECK_STR(capture_time(90ULL * 1000000000ULL), "     1.50 m ");
}

TEST(lock_type_names)
{
	CHECK_STR(lock__type_name(LCB_F_SPIN), "spinlock");
	CHECK_STR(lock__type_name(LCB_F_WRITE), "rwsem:W");
	CHECK_STR(lock__type_name(LCB_F_SPIN | LCB_F_READ), "rwlock:R");
	CHECK_STR(lock__type_name(LCB_F_MUTEX | LCB_F_SPIN), "mutex");
	CHECK_STR(lock__type_name(0), "semaphore");
	CHECK_STR(lock__type_name(0x40), "unknown");
	CHECK_STR(lock__class_name(LOCK_CLASS_MMAP), "mmap_lock");
	CHECK(!lock__class_name(LOCK_CLASS_NONE));
}

TEST(lock_table_as_perf)
{
	char *path = write_kallsyms(), *buf = NULL;
	struct lock_row rows[2] = {
		{ .count = 34, .total_ns = 332020, .max_ns = 12890, .min_ns = 100, .flags = LCB_F_SPIN, .nips = 3,
		  .ips = { 0xffffffff82201d7eULL, 0xffffffff82200fd9ULL, 0xffffffff8100033cULL } },
		{ .count = 2, .total_ns = 5000000000ULL, .max_ns = 3000000000ULL, .min_ns = 2000000000ULL,
		  .flags = LCB_F_WRITE, .nips = 2, .ips = { 0xffffffff821fd620ULL, 0xffffffff810001e0ULL } },
	};
	struct lock_result r = { .k = rows, .nk = 2 };
	struct lock_print po = { .aggr = LOCK_AGGR_CALLER };
	struct symbolizer *s = symbolizer__new(0);
	struct kdata *k = NULL;
	size_t len = 0;
	FILE *f;

	CHECK(path && s);
	CHECK_INT(symbolizer__set_kallsyms(s, path), 0);
	CHECK_INT(kdata__load(&k, path), 0);
	lock_result__sort(&r, LOCK_SORT_CONTENDED);
	CHECK_INT(rows[0].count, 34);
	lock_result__sort(&r, LOCK_SORT_TOTAL);
	CHECK_INT(rows[0].count, 2);
	f = open_memstream(&buf, &len);
	lock_print__kern(f, s, k, &r, &po);
	fclose(f);
	CHECK_STR(buf,
		  " contended   total wait     max wait     avg wait         type   caller\n"
		  "\n"
		  "         2      5.00 s       3.00 s       2.50 s       rwsem:W   vm_mmap_pgoff+0xe0\n"
		  "        34    332.02 us     12.89 us      9.77 us     spinlock   try_to_wake_up+0x3c\n");
	free(buf);
	kdata__free(k);
	symbolizer__free(s);
	unlink(path);
}

TEST(lock_user_rows_merge_by_address)
{
	struct ulock_row u[3] = {
		{ .kind = ULOCK_MUTEX, .tgid = 7, .addr = 0x1000, .count = 3, .wait_ns = 30, .wait_max_ns = 20,
		  .holds = 3, .hold_ns = 9, .hold_max_ns = 5, .nips = 1 },
		{ .kind = ULOCK_FUTEX, .tgid = 7, .addr = 0x1000, .count = 2, .wait_ns = 10, .nips = 1 },
		{ .kind = ULOCK_MUTEX, .tgid = 7, .addr = 0x1000, .count = 4, .wait_ns = 50, .wait_max_ns = 40,
		  .holds = 4, .hold_ns = 4, .hold_max_ns = 1, .nips = 2 },
	};
	struct lock_result r = { .u = u, .nu = 3 };

	lock_result__merge_user_by_addr(&r);
	CHECK_INT(r.nu, 2);
	CHECK_INT(u[0].kind, ULOCK_MUTEX);
	CHECK_INT(u[0].count, 7);
	CHECK_INT(u[0].wait_ns, 80);
	CHECK_INT(u[0].wait_max_ns, 40);
	CHECK_INT(u[0].hold_ns, 13);
	CHECK_INT(u[0].hold_max_ns, 5);
	CHECK_INT(u[0].nips, 0);
	CHECK_INT(u[1].kind, ULOCK_FUTEX);
	CHECK_INT(u[1].count, 2);
}

TEST(lock_cpus_add_up)
{
	struct lock_val vs[3] = {
		{ .count = 2, .total_ns = 30, .max_ns = 20, .min_ns = 10, .flags = LCB_F_WRITE, .comm = "a" },
		{ 0 },	/* a CPU that never waited: its zero min is not the row's */
		{ .count = 1, .total_ns = 5, .max_ns = 5, .min_ns = 5, .flags = LCB_F_READ, .comm = "b" },
	};
	struct lock_val v;

	CHECK(lock_val__sum(vs, 3, &v));
	CHECK_INT(v.count, 3);
	CHECK_INT(v.total_ns, 35);
	CHECK_INT(v.max_ns, 20);
	CHECK_INT(v.min_ns, 5);
	CHECK_INT(v.flags, LCB_F_WRITE);
	CHECK_STR(v.comm, "a");
	CHECK(!lock_val__sum(vs + 1, 1, &v));
}
