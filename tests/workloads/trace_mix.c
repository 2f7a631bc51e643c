// SPDX-License-Identifier: GPL-2.0
/*
 * trace_mix.c - a deterministic mix of syscalls for comparing `sonde trace`
 * with strace: open flags, calls failing with ENOENT, long and binary
 * buffers, mmap/mprotect/munmap, a signal with a handler, sockets (a failed
 * TCP connect, a unix socketpair), pipes, writev, a sleep, and a child that
 * exits 7 and is waited for, and a read that blocks while a child runs.
 * usage: trace_mix DIR   (works in DIR, leaves it as it found it; exits 0)
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t got;

static void on_usr1(int sig)
{
	got = sig;
}

static void files(void)
{
	char buf[64], bin[40];
	struct stat st;
	int fd;

	fd = open("f1", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	write(fd, "hello\n", 6);
	write(fd, "a line longer than thirty-two bytes, cut by strace at -s\n", 57);
	close(fd);
	fd = open("f1", O_RDWR | O_APPEND);
	fcntl(fd, F_GETFL);
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	fcntl(fd, F_GETFD);
	lseek(fd, 0, SEEK_SET);
	read(fd, buf, sizeof(buf));
	for (int i = 0; i < (int)sizeof(bin); i++)
		bin[i] = (char)(i * 37 + 1);
	write(fd, bin, sizeof(bin));
	close(fd);
	open("does-not-exist", O_RDONLY);
	stat("does-not-exist", &st);
	access("does-not-exist", F_OK);
	access("f1", R_OK | W_OK);
	unlink("does-not-exist");
	mkdir("d1", 0755);
	rmdir("d1");
	rename("f1", "f2");
	unlink("f2");
	close(99);
}

static void memory(void)
{
	char *p = mmap(NULL, 4 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	p[0] = 1;
	mprotect(p, 4096, PROT_NONE);
	munmap(p, 4 * 4096);
	mmap((void *)4096, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
}

static void signals(void)
{
	struct sigaction sa;
	sigset_t set;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	sigprocmask(SIG_BLOCK, &set, NULL);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	kill(getpid(), SIGUSR1);
	signal(SIGUSR1, SIG_DFL);
}

static void sockets(void)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(1) };
	int s, sv[2];
	char buf[16];

	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	connect(s, (struct sockaddr *)&sin, sizeof(sin));
	close(s);
	socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	sendto(sv[0], "ping", 4, 0, NULL, 0);
	recvfrom(sv[1], buf, sizeof(buf), 0, NULL, NULL);
	shutdown(sv[0], SHUT_RDWR);
	close(sv[0]);
	close(sv[1]);
}

static void pipes(void)
{
	struct iovec iov[2] = { { "ab", 2 }, { "cdef", 4 } };
	struct timespec ts = { 0, 1000000 };
	int p[2];
	char buf[8];

	pipe2(p, O_CLOEXEC);
	writev(p[1], iov, 2);
	read(p[0], buf, sizeof(buf));
	dup2(p[0], 10);
	close(10);
	close(p[0]);
	close(p[1]);
	nanosleep(&ts, NULL);
}

static void child(void)
{
	int st;
	pid_t pid = fork();

	if (pid == 0) {
		getppid();
		_exit(7);
	}
	wait4(pid, &st, 0, NULL);
}

/* the parent blocks in read() while its child sleeps 50 ms and writes: lines interleave */
static void interleave(void)
{
	struct timespec ts = { 0, 50000000 };
	int go[2], back[2];
	char c;
	pid_t pid;

	if (pipe(go) || pipe(back))
		return;
	pid = fork();
	if (pid == 0) {
		read(go[0], &c, 1);
		nanosleep(&ts, NULL);
		write(back[1], "y", 1);
		_exit(0);
	}
	write(go[1], "g", 1);
	read(back[0], &c, 1);
	waitpid(pid, NULL, 0);
	close(go[0]);
	close(go[1]);
	close(back[0]);
	close(back[1]);
}

int main(int argc, char **argv)
{
	if (argc < 2 || chdir(argv[1]))
		return 2;
	files();
	memory();
	signals();
	sockets();
	pipes();
	child();
	interleave();
	return got == SIGUSR1 ? 0 : 1;
}
