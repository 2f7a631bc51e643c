// SPDX-License-Identifier: GPL-2.0
/*
 * ltracee2 - signals, exec and dlopen for `sonde ltrace` and Debian's ltrace.
 * Every mode first installs a SIGUSR1 handler (signal(SIGUSR1, handler)) and
 * compares its name (strcmp) until it finds its mode; then:
 *   usr1       raise(SIGUSR1): the handler calls strlen("in handler") = 10
 *   ign        signal(SIGUSR2, SIG_IGN), kill(getpid(), SIGUSR2)
 *   term       kill(getpid(), SIGTERM): killed by SIGTERM
 *   kill       kill(getpid(), SIGKILL): killed by SIGKILL
 *   exec CMD.. strlen("before exec") = 11, then execv(CMD...)
 *   forkexec CMD..  fork(); the child execs CMD, the parent waits for it
 *   dlopen LIB dlopen(LIB), dlsym(lt_dl_call), and calls it with "dl"
 * and exit(3) where the mode lets it get there.
 * usage: ltracee2 MODE [ARG...]
 */
#include <dlfcn.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *volatile in = "in handler", *volatile before = "before exec";
static volatile long sink;

static void on_usr1(int sig)
{
	sink += strlen(in) + sig;
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "usr1";

	signal(SIGUSR1, on_usr1);
	if (!strcmp(how, "usr1")) {
		raise(SIGUSR1);
	} else if (!strcmp(how, "ign")) {
		signal(SIGUSR2, SIG_IGN);
		kill(getpid(), SIGUSR2);
	} else if (!strcmp(how, "term")) {
		kill(getpid(), SIGTERM);
	} else if (!strcmp(how, "kill")) {
		kill(getpid(), SIGKILL);
	} else if (!strcmp(how, "exec") && argc > 2) {
		sink += strlen(before);
		execv(argv[2], argv + 2);
		return 127;
	} else if (!strcmp(how, "forkexec") && argc > 2) {
		pid_t pid = fork();

		if (pid == 0) {
			execv(argv[2], argv + 2);
			_exit(127);
		}
		waitpid(pid, NULL, 0);
	} else if (!strcmp(how, "dlopen") && argc > 2) {
		void *h = dlopen(argv[2], RTLD_NOW);
		int (*call)(const char *) = h ? (int (*)(const char *))dlsym(h, "lt_dl_call") : NULL;

		if (!call)
			return 2;
		sink += call("dl");
	}
	exit(3);
}
