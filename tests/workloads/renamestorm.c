// SPDX-License-Identifier: GPL-2.0
/*
 * renamestorm.c - kernel lock contention in the VFS: T threads rename their
 * own file back and forth N times in one directory, so they queue on the
 * directory inode's i_rwsem (taken for writing by every rename in it).
 *
 *   renamestorm DIR [T [N]]    (default 4 threads, 2000 round trips each)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static const char *dir;
static long n = 2000;

static void *renamer(void *arg)
{
	long me = (long)arg;
	char a[4096], b[4096];
	FILE *f;

	snprintf(a, sizeof(a), "%s/renamestorm.%ld.a", dir, me);
	snprintf(b, sizeof(b), "%s/renamestorm.%ld.b", dir, me);
	if (!(f = fopen(a, "w")))
		exit(2);
	fclose(f);
	for (long i = 0; i < n; i++)
		if (rename(a, b) || rename(b, a))
			exit(2);
	unlink(a);
	return NULL;
}

int main(int argc, char **argv)
{
	long nt = argc > 2 ? atol(argv[2]) : 4;
	pthread_t t[64];

	if (argc < 2 || nt < 1 || nt > 64)
		return 1;
	dir = argv[1];
	if (argc > 3)
		n = atol(argv[3]);
	for (long i = 0; i < nt; i++)
		if (pthread_create(&t[i], NULL, renamer, (void *)i))
			return 1;
	for (long i = 0; i < nt; i++)
		pthread_join(t[i], NULL);
	return 0;
}
