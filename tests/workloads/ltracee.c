// SPDX-License-Identifier: GPL-2.0
/*
 * ltracee - known library calls with known arguments, for `sonde ltrace` and
 * Debian's ltrace. In order: strlen("hello") = 5, malloc(100), free of it,
 * puts("ltracee"), atoi("42") = 42, getenv("LTRACEE_UNSET") = nil,
 * strcmp("abc", "abd") = -1, a string longer than 32 characters to strlen,
 * then N times (argv[1], default 3) toupper('a') = 'A', then rand() (no
 * prototype in ltrace's table), usleep(MS * 1000) when MS (argv[4]) is
 * given, and exit(0).
 * MODE (argv[3]): "fork" runs the known calls again in a child (waited for),
 * "thread" in a second thread (joined). With "wait" as argv[2] it first reads
 * a byte from stdin (a tracer attaches by -p meanwhile); "loop" as argv[2]
 * repeats everything forever (a tracer attaches to a running process).
 * usage: ltracee [N [wait|loop|- [fork|thread|- [MS]]]]
 */
#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* volatile: the compiler folds none of these calls (strlen of a constant, a malloc/free pair) */
static const char *volatile hello = "hello", *volatile forty_two = "42", *volatile unset = "LTRACEE_UNSET";
static const char *volatile abc = "abc", *volatile abd = "abd", *volatile name = "ltracee";
static const char *volatile lng = "a string of forty-four characters, 0123456";
static volatile int lower = 'a';
static void *volatile block;
static volatile long sink;

static void known_calls(int n)
{
	sink += strlen(hello);
	block = malloc(100);
	free(block);
	puts(name);
	fflush(stdout);
	sink += atoi(forty_two);
	sink += getenv(unset) != NULL;
	sink += strcmp(abc, abd);
	sink += strlen(lng);
	for (int i = 0; i < n; i++)
		sink += toupper(lower);
}

static void *thread_main(void *arg)
{
	known_calls((int)(long)arg);
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3;
	const char *how = argc > 2 ? argv[2] : "-", *mode = argc > 3 ? argv[3] : "-";
	int ms = argc > 4 ? atoi(argv[4]) : 0;
	char c;

	if (!strcmp(how, "wait") && read(0, &c, 1) < 0)
		return 1;
	do {
		known_calls(n);
		if (!strcmp(mode, "fork")) {
			pid_t pid = fork();

			if (pid == 0) {
				known_calls(n);
				_exit(0);
			}
			waitpid(pid, NULL, 0);
		} else if (!strcmp(mode, "thread")) {
			pthread_t t;

			if (pthread_create(&t, NULL, thread_main, (void *)(long)n))
				return 1;
			pthread_join(t, NULL);
		}
		sink += rand();
		if (ms)
			usleep(ms * 1000);
	} while (!strcmp(how, "loop"));
	exit(0);
}
