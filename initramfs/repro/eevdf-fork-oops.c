// SPDX-License-Identifier: GPL-2.0
/*
 * Reproducer for a NULL pointer dereference in pick_task_fair() on
 * Linux 6.12.118: pick_eevdf() finds no eligible entity on the root
 * cfs_rq of a CPU full of SCHED_IDLE or nice-19 spinners, and
 * pick_task_fair() reads se->sched_delayed through the NULL it returned
 * ("BUG: kernel NULL pointer dereference, address: 0000000000000051").
 * The race behind it is between the reads of sched/debug, whose
 * print_cfs_rq() calls avg_vruntime() without the runqueue lock, and
 * the owning CPU's updates of the same cfs_rq.
 *
 * The load is the one that first hit it: on four CPUs, CPUs 0 and 1 run
 * two normal spinners each, CPU2 runs 22 SCHED_IDLE spinners and CPU3
 * four spinners at nice 19, every one of them pinned; this process stays
 * on CPU0 but for each fork, which it makes with every CPU allowed, so
 * that the fork balance may place the child on CPU2 or CPU3. Before each
 * fork it waits until CPU2's PELT load is above CPU3's by at most 17%, as
 * the subtest that found it did. Each child spins for CHILD_NS of CPU
 * time, and until it has exited the parent reads sched/debug as far as
 * CPU2's root load, again and again. The spinners are made afresh every
 * ROUND_FORKS forks, so that each round also migrates and reweights
 * them.
 *
 * usage: eevdf-fork-oops SECONDS
 * Prints "rounds=R forks=F settled=S exited_on_cpu0-3=A,B,C,D" (the
 * forks made after the loads settled, and the CPUs the children exited
 * on) and exits 0 if the kernel survived SECONDS of it; 2 if the machine
 * cannot run it (fewer than 4 CPUs, not root); 1 on any other failure.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SCHED_DEBUG	"/sys/kernel/debug/sched/debug"
#define MAX_SPINNERS	32
#define ROUND_FORKS	30
#define POLL_US		10000
#define SETTLE_POLLS	300
#define CHILD_NS	5000000L

static pid_t spinners[MAX_SPINNERS];
static int nr_spinners;
static int nr_cpus;

static void die(const char *what)
{
	fprintf(stderr, "eevdf-fork-oops: %s: %s\n", what, strerror(errno));
	exit(1);
}

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static int unpin(void)
{
	cpu_set_t set;
	int cpu;

	CPU_ZERO(&set);
	for (cpu = 0; cpu < nr_cpus; cpu++)
		CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/*
 * A child that pins itself to @cpu, takes @policy and @nice, and spins.
 * Returns once it has set itself up.
 */
static void spawn_spinner(int cpu, int policy, int nice)
{
	struct sched_param param = { .sched_priority = 0 };
	pid_t parent = getpid();
	int ready[2];
	char c;
	pid_t pid;

	if (nr_spinners == MAX_SPINNERS) {
		fprintf(stderr, "eevdf-fork-oops: more than %d spinners\n",
			MAX_SPINNERS);
		exit(1);
	}
	if (pipe(ready))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent ||
		    pin(cpu) || sched_setscheduler(0, policy, &param) ||
		    setpriority(PRIO_PROCESS, 0, nice) ||
		    write(ready[1], "r", 1) != 1)
			_exit(1);
		for (;;)
			;
	}
	spinners[nr_spinners++] = pid;
	close(ready[1]);
	if (read(ready[0], &c, 1) != 1) {
		errno = ECHILD;
		die("a spinner could not set itself up");
	}
	close(ready[0]);
}

static void kill_spinners(void)
{
	while (nr_spinners > 0) {
		nr_spinners--;
		kill(spinners[nr_spinners], SIGKILL);
		waitpid(spinners[nr_spinners], NULL, 0);
	}
}

/* The load_avg of @cpu's root cfs_rq in SCHED_DEBUG, or -1. */
static long root_load(int cpu)
{
	char line[256], want[32];
	int in_root = 0;
	long val = -1;
	FILE *f;

	f = fopen(SCHED_DEBUG, "r");
	if (!f)
		return -1;
	snprintf(want, sizeof(want), "cfs_rq[%d]:/\n", cpu);
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "cfs_rq[", 7)) {
			in_root = !strcmp(line, want);
			continue;
		}
		if (in_root && sscanf(line, " .load_avg : %ld", &val) == 1)
			break;
	}
	fclose(f);
	return val;
}

/* Whether CPU2's load comes to lie above CPU3's by at most 17% in time. */
static int settle(void)
{
	long l2, l3;
	int i;

	for (i = 0; i < SETTLE_POLLS; i++) {
		l2 = root_load(2);
		l3 = root_load(3);
		if (l3 > 0 && l2 > l3 && 100 * l2 <= 117 * l3)
			return 1;
		usleep(POLL_US);
	}
	return 0;
}

/* A child that runs for CHILD_NS of CPU time where it started, and exits. */
static void child(void)
{
	struct timespec t;

	do {
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	} while (t.tv_sec == 0 && t.tv_nsec < CHILD_NS);
	_exit(0);
}

/* Whether @pid has exited; it stays a zombie until waitpid(). */
static int exited(pid_t pid)
{
	siginfo_t info = { 0 };

	if (waitid(P_PID, pid, &info, WEXITED | WNOHANG | WNOWAIT))
		die("waitid");
	return info.si_pid == pid;
}

/* The CPU @pid last ran on (field 39 of /proc/PID/stat), or -1. */
static int last_cpu(pid_t pid)
{
	char path[64], buf[1024], *p;
	int cpu = -1, field;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fgets(buf, sizeof(buf), f)) {
		/* The command in field 2 may hold spaces: count after ")". */
		p = strrchr(buf, ')');
		for (field = 2; p && field < 39; field++)
			p = strchr(p + 1, ' ');
		if (p)
			cpu = atoi(p + 1);
	}
	fclose(f);
	return cpu;
}

int main(int argc, char **argv)
{
	long seconds = argc > 1 ? strtol(argv[1], NULL, 10) : 0;
	long rounds = 0, forks = 0, settled = 0;
	time_t end;
	pid_t pid;
	int where[4] = { 0 };
	int i, cpu;

	if (seconds <= 0) {
		fprintf(stderr, "usage: eevdf-fork-oops SECONDS\n");
		return 1;
	}
	nr_cpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (nr_cpus < 4 || geteuid()) {
		fprintf(stderr, "eevdf-fork-oops: needs root and 4 CPUs (%d online)\n",
			nr_cpus);
		return 2;
	}
	if (pin(0))
		die("sched_setaffinity");
	end = time(NULL) + seconds;
	while (time(NULL) < end) {
		for (i = 0; i < 4; i++)
			spawn_spinner(i / 2, SCHED_OTHER, 0);
		for (i = 0; i < 22; i++)
			spawn_spinner(2, SCHED_IDLE, 0);
		for (i = 0; i < 4; i++)
			spawn_spinner(3, SCHED_OTHER, 19);
		for (i = 0; i < ROUND_FORKS && time(NULL) < end; i++) {
			settled += settle();
			if (unpin())
				die("sched_setaffinity");
			pid = fork();
			if (pid == 0)
				child();
			if (pid < 0)
				die("fork");
			if (pin(0))
				die("sched_setaffinity");
			/* Read while the child runs where it was placed. */
			do {
				root_load(2);
			} while (!exited(pid));
			cpu = last_cpu(pid);
			if (cpu >= 0 && cpu < 4)
				where[cpu]++;
			waitpid(pid, NULL, 0);
			forks++;
		}
		kill_spinners();
		rounds++;
	}
	printf("rounds=%ld forks=%ld settled=%ld exited_on_cpu0-3=%d,%d,%d,%d\n",
	       rounds, forks, settled, where[0], where[1], where[2], where[3]);
	return 0;
}
