// SPDX-License-Identifier: GPL-2.0
/*
 * sched-idle-analyse: numbers for the report, from what a guest run left.
 *
 *   sched-idle-analyse trace [-t TASKS] [-T TIMELINE] [-w FROM,LEN] TRACE.DAT
 *
 * "trace" reads a trace.dat through libtracecmd, replays sched_switch,
 * sched_wakeup(_new) and sched_migrate_task into a model of each CPU's
 * runnable tasks, and prints key=value lines: wakeup latency per task
 * class, "avoidable stacking" (a normal task placed on a CPU that already
 * runs or queues work it cannot preempt at once while another CPU of the
 * LLC has only work it can), "misplacement" (a normal task placed on a CPU
 * whose SCHED_IDLE work it cannot preempt at once), and per-CPU residency
 * by class, and how each normal wakee's wait ended (below). TASKS is the
 * guest's "tid policy comm [at_once]" map; threads
 * not in it count as normal. at_once is 1 when a woken normal task from
 * another cgroup preempts the thread at once under the guest kernel's
 * rule (the guest decides it from the thread's policy and cgroup) and 0
 * when it does not, as for a SCHED_IDLE thread below a normal cgroup on
 * 6.12; without it every SCHED_IDLE thread counts as preempted at once.
 * The guest runs with one LLC (-smp sockets=1), so every CPU of the trace
 * is one LLC.
 *
 * How a wait ended, per wakeup of a normal task whose target CPU a
 * sched_switch has shown: "idle", the target ran nothing; "at_once", the
 * task running there at the wakeup was preempted for the wakee, and the
 * wakeup did it; "tick", the same, but a scheduler tick did it (the
 * wakeup did not preempt; the tick's check, under EEVDF the end of a
 * slice, did); "blocked", that task went to sleep and the wakee came
 * next; "queued", another task ran there before the wakee; "moved", the
 * wakee was migrated (load balance) before it ran, or ran elsewhere.
 *
 * The wakeup did it when its sched_wakeup, recorded on the target CPU,
 * shows need_resched set (common_flags: the kernel checks for preemption
 * before it traces a wakeup, though not a fork's sched_wakeup_new) and
 * the event before it on that CPU shows it clear. A tick did it when the
 * bit was set already and a tick had come since that CPU's last switch,
 * or when a tick came between the wakeup and the switch. Otherwise, with
 * no tick before the switch, the wakeup did it. A tick is
 * timer:hrtimer_expire_entry of the tick's hrtimer (tick_sched_timer,
 * 6.12's tick_nohz_handler): the timer interrupt alone would not do, as
 * the wakee's timer and the tick often expire in one interrupt, in either
 * order. Without that event in the trace "at_once" and "tick" are one
 * class, "preempted", and wait_split_tick=0 says so; hrtimer_events=
 * tells a trace without hrtimers from one whose tick went unnamed.
 * resched_at_once_n counts the waits the wakeup's flag alone put in
 * "at_once" (or "preempted").
 *
 * The rt-app logs and every figure of the report are read by
 * scripts/metrics.py; this tool only gives what needs the trace.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <trace-cmd/trace-cmd.h>
#include <traceevent/event-parse.h>

#define MAX_CPUS	64
#define MAX_TIDS	4194304		/* PID_MAX_LIMIT on 64-bit */
#define MAX_RQ		64
#define SCHED_IDLE	5
#define BOOT_ROUNDS	1000

enum class { CLASS_OTHER, CLASS_NORMAL, CLASS_IDLE_POLICY, CLASS_SWAPPER, NR_CLASSES };

static const char * const class_name[NR_CLASSES] = {
	"other", "normal", "sched_idle", "idle",
};

struct samples {
	double *v;
	size_t n, size;
};

struct cpu_state {
	int rq[MAX_RQ];		/* runnable tids, the running one included */
	int nr;
	int curr;
	int seen;		/* a sched_switch showed what runs here */
	unsigned long switches, ticks;
	unsigned long ticks_at_switch;
	int resched;		/* need_resched, at the last event here */
	unsigned long long since;
	unsigned long long residency[NR_CLASSES];
};

enum wait {
	WAIT_IDLE, WAIT_AT_ONCE, WAIT_TICK, WAIT_PREEMPTED, WAIT_BLOCKED,
	WAIT_QUEUED, WAIT_MOVED, NR_WAITS
};

static const char * const wait_name[NR_WAITS] = {
	"idle", "at_once", "tick", "preempted", "blocked", "queued", "moved",
};

struct wakeup {
	unsigned long long ts;
	int pending;
	int stacked;
	int classify;		/* a placement whose wait is classified */
	int target, curr, moved;
	int resched;		/* the wakeup set need_resched on the target */
	int tick_resched;	/* a tick had set it before the wakeup */
	unsigned long switches, ticks;	/* the target's, at the wakeup */
};

/* sched_wakeup and sched_wakeup_new share one format. */
struct wakeup_event {
	int id;
	struct tep_format_field *pid, *target_cpu;
};

struct model {
	struct tep_handle *tep;
	int switch_id, migrate_id, hrtimer_id;	/* hrtimer_id -1: no such event */
	struct tep_format_field *prev_pid, *prev_state, *next_pid;
	struct wakeup_event wakeup, wakeup_new;
	struct tep_format_field *mig_pid, *mig_orig, *mig_dest, *hrtimer_fn;
	unsigned char *class;	/* indexed by tid */
	unsigned char *slow;	/* SCHED_IDLE, but not preempted at once */
	struct wakeup *wake;	/* indexed by tid */
	struct cpu_state cpu[MAX_CPUS];
	int nr_cpus;
	unsigned long long first_ts, last_ts;
	unsigned long long win_from, win_to;
	FILE *timeline;
	struct samples lat[NR_CLASSES];
	long placements, stacked, stacked_idle_free, skipped_cold, misplaced;
	long wait_n[NR_WAITS], ticks, hrtimers, at_once_resched;
	double wait_us[NR_WAITS];
	double stacked_us;
	long events, out_of_order;
};

static void die(const char *fmt, const char *arg)
{
	fprintf(stderr, "sched-idle-analyse: ");
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	exit(1);
}

static void samples_add(struct samples *s, double v)
{
	if (s->n == s->size) {
		s->size = s->size ? 2 * s->size : 1024;
		s->v = realloc(s->v, s->size * sizeof(*s->v));
		if (!s->v)
			die("%s", "out of memory");
	}
	s->v[s->n++] = v;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Median of a sorted array. */
static double median(const double *v, size_t n)
{
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* A fixed seed: the same files give the same interval. */
static unsigned long long xorshift(unsigned long long *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void bootstrap_median(const struct samples *s, double *lo, double *hi)
{
	double *meds = calloc(BOOT_ROUNDS, sizeof(*meds));
	double *draw = calloc(s->n, sizeof(*draw));
	unsigned long long seed = 0x5eed1d1eULL;
	size_t i, r;

	if (!meds || !draw)
		die("%s", "out of memory");
	for (r = 0; r < BOOT_ROUNDS; r++) {
		for (i = 0; i < s->n; i++)
			draw[i] = s->v[xorshift(&seed) % s->n];
		qsort(draw, s->n, sizeof(*draw), cmp_double);
		meds[r] = median(draw, s->n);
	}
	qsort(meds, BOOT_ROUNDS, sizeof(*meds), cmp_double);
	*lo = meds[BOOT_ROUNDS * 25 / 1000];
	*hi = meds[BOOT_ROUNDS * 975 / 1000 - 1];
	free(draw);
	free(meds);
}

/* The seed's st figures, then median, its interval and the 99th percentile. */
static void print_stats(const char *prefix, struct samples *s)
{
	double sum = 0, sq = 0, mean, var, lo, hi;
	size_t i;

	printf("%s_n=%zu\n", prefix, s->n);
	if (!s->n)
		return;
	qsort(s->v, s->n, sizeof(*s->v), cmp_double);
	for (i = 0; i < s->n; i++)
		sum += s->v[i];
	mean = sum / s->n;
	for (i = 0; i < s->n; i++)
		sq += (s->v[i] - mean) * (s->v[i] - mean);
	/* st prints the sample standard deviation. */
	var = s->n > 1 ? sq / (s->n - 1) : 0;
	bootstrap_median(s, &lo, &hi);
	printf("%s_min=%.3f\n%s_max=%.3f\n", prefix, s->v[0], prefix, s->v[s->n - 1]);
	printf("%s_sum=%.3f\n%s_mean=%.3f\n", prefix, sum, prefix, mean);
	printf("%s_stddev=%.3f\n", prefix, sqrt(var));
	printf("%s_median=%.3f\n%s_median_lo=%.3f\n%s_median_hi=%.3f\n",
	       prefix, median(s->v, s->n), prefix, lo, prefix, hi);
	printf("%s_p99=%.3f\n", prefix, s->v[(s->n * 99) / 100]);
}

static int valid_tid(int tid)
{
	return tid > 0 && tid < MAX_TIDS;
}

static enum class class_of(struct model *m, int tid)
{
	if (tid == 0)
		return CLASS_SWAPPER;
	return valid_tid(tid) ? m->class[tid] : CLASS_OTHER;
}

/* The map's threads are the workload's; the rest (kthreads, the shell) are "other". */
static void read_tasks(struct model *m, const char *path)
{
	FILE *f = fopen(path, "r");
	int tid, policy, at_once, n;
	char line[256], comm[64];

	if (!f)
		die("cannot open %s", path);
	while (fgets(line, sizeof(line), f)) {
		at_once = 1;
		n = sscanf(line, "%d %d %63s %d", &tid, &policy, comm, &at_once);
		if (n < 3 || (n == 4 && at_once != 0 && at_once != 1))
			die("%s: a line is not \"tid policy comm [at_once]\"", path);
		if (!valid_tid(tid))
			continue;
		m->class[tid] = policy == SCHED_IDLE ? CLASS_IDLE_POLICY : CLASS_NORMAL;
		m->slow[tid] = policy == SCHED_IDLE && !at_once;
	}
	fclose(f);
}

static struct tep_format_field *event_field(struct tep_event *ev, const char *name)
{
	struct tep_format_field *f = tep_find_field(ev, name);

	if (!f)
		die("event without field %s", name);
	return f;
}

static struct tep_event *sched_event(struct model *m, const char *name)
{
	struct tep_event *ev = tep_find_event_by_name(m->tep, "sched", name);

	if (!ev)
		die("the trace has no sched:%s event", name);
	return ev;
}

static void find_wakeup_event(struct model *m, const char *name,
			      struct wakeup_event *w)
{
	struct tep_event *ev = sched_event(m, name);

	w->id = ev->id;
	w->pid = event_field(ev, "pid");
	w->target_cpu = event_field(ev, "target_cpu");
}

static void find_events(struct model *m)
{
	struct tep_event *ev;

	ev = sched_event(m, "sched_switch");
	m->switch_id = ev->id;
	m->prev_pid = event_field(ev, "prev_pid");
	m->prev_state = event_field(ev, "prev_state");
	m->next_pid = event_field(ev, "next_pid");
	find_wakeup_event(m, "sched_wakeup", &m->wakeup);
	find_wakeup_event(m, "sched_wakeup_new", &m->wakeup_new);
	ev = sched_event(m, "sched_migrate_task");
	m->migrate_id = ev->id;
	m->mig_pid = event_field(ev, "pid");
	m->mig_orig = event_field(ev, "orig_cpu");
	m->mig_dest = event_field(ev, "dest_cpu");
	ev = tep_find_event_by_name(m->tep, "timer", "hrtimer_expire_entry");
	m->hrtimer_id = ev ? ev->id : -1;
	if (ev)
		m->hrtimer_fn = event_field(ev, "function");
}

static long long num(struct tep_format_field *f, struct tep_record *rec)
{
	unsigned long long v = 0;

	tep_read_number_field(f, rec->data, &v);
	if (f->size == 4)
		return (int)v;
	return (long long)v;
}

static int rq_find(struct cpu_state *c, int tid)
{
	int i;

	for (i = 0; i < c->nr; i++)
		if (c->rq[i] == tid)
			return i;
	return -1;
}

static void rq_del(struct cpu_state *c, int tid)
{
	int i = rq_find(c, tid);

	if (i >= 0)
		c->rq[i] = c->rq[--c->nr];
}

static void rq_add(struct cpu_state *c, int tid)
{
	if (tid > 0 && rq_find(c, tid) < 0 && c->nr < MAX_RQ)
		c->rq[c->nr++] = tid;
}

/* Which CPU's model holds tid as runnable, or -1. */
static int runnable_on(struct model *m, int tid)
{
	int cpu;

	for (cpu = 0; cpu < m->nr_cpus; cpu++)
		if (rq_find(&m->cpu[cpu], tid) >= 0)
			return cpu;
	return -1;
}

/* Does a woken normal task preempt tid at once? */
static int preempted_at_once(struct model *m, int tid)
{
	return class_of(m, tid) == CLASS_IDLE_POLICY && !m->slow[tid];
}

/*
 * Does the CPU run or queue a task other than tid that a woken normal
 * task would not preempt at once?
 */
static int busy_with_normal(struct model *m, struct cpu_state *c, int tid)
{
	int i;

	for (i = 0; i < c->nr; i++)
		if (c->rq[i] != tid && !preempted_at_once(m, c->rq[i]))
			return 1;
	return 0;
}

/* Runnable tasks, all preempted at once: what a sched-idle CPU promises. */
static int only_sched_idle(struct model *m, struct cpu_state *c)
{
	return c->nr > 0 && !busy_with_normal(m, c, -1);
}

/*
 * Runnable tasks other than tid, all SCHED_IDLE, one of them not
 * preempted at once: a CPU that a count by policy alone calls sched-idle.
 */
static int slow_sched_idle(struct model *m, struct cpu_state *c, int tid)
{
	int i, slow = 0;

	for (i = 0; i < c->nr; i++) {
		if (c->rq[i] == tid)
			continue;
		if (class_of(m, c->rq[i]) != CLASS_IDLE_POLICY)
			return 0;
		slow |= m->slow[c->rq[i]];
	}
	return slow;
}

static void place(struct model *m, unsigned long long ts, int tid, int target,
		  int resched, int tick_resched)
{
	struct cpu_state *t = &m->cpu[target];
	struct wakeup *w = &m->wake[tid];
	int cpu, idle_policy = 0, idle_free = 0;

	w->ts = ts;
	w->pending = 1;
	w->stacked = 0;
	w->classify = 0;
	if (class_of(m, tid) != CLASS_NORMAL)
		return;
	/* Until a sched_switch shows what the target runs, it is unknown. */
	if (!t->seen) {
		m->skipped_cold++;
		return;
	}
	m->placements++;
	w->classify = 1;
	w->target = target;
	w->curr = t->curr;
	w->moved = 0;
	w->resched = resched;
	w->tick_resched = tick_resched;
	w->switches = t->switches;
	w->ticks = t->ticks;
	m->misplaced += slow_sched_idle(m, t, tid);
	if (!busy_with_normal(m, t, tid))
		return;
	for (cpu = 0; cpu < m->nr_cpus; cpu++) {
		if (cpu == target)
			continue;
		idle_policy |= only_sched_idle(m, &m->cpu[cpu]);
		idle_free |= m->cpu[cpu].seen && !m->cpu[cpu].nr;
	}
	if (idle_policy) {
		m->stacked++;
		m->wake[tid].stacked = 1;
	}
	m->stacked_idle_free += idle_free;
}

static void on_wakeup(struct model *m, const struct wakeup_event *w,
		      struct tep_record *rec, int cpu, int now)
{
	int tid = num(w->pid, rec), target = num(w->target_cpu, rec);
	struct cpu_state *c = &m->cpu[cpu];
	int resched = 0, tick_resched = 0;

	if (!valid_tid(tid) || target < 0 || target >= m->nr_cpus)
		return;
	/* A wakeup of a task still runnable is no placement decision. */
	if (runnable_on(m, tid) >= 0)
		return;
	/* The flags are the tracing CPU's; a fork is traced before the check. */
	if (cpu == target && w == &m->wakeup && now) {
		resched = !c->resched;
		tick_resched = c->resched && c->ticks != c->ticks_at_switch;
	}
	place(m, rec->ts, tid, target, resched, tick_resched);
	rq_add(&m->cpu[target], tid);
}

static void timeline_segment(struct model *m, int cpu, unsigned long long from,
			     unsigned long long to, enum class cls)
{
	if (!m->timeline || to <= m->win_from || from >= m->win_to)
		return;
	from = from < m->win_from ? m->win_from : from;
	to = to > m->win_to ? m->win_to : to;
	fprintf(m->timeline, "%d %.6f %.6f %s\n", cpu,
		(from - m->first_ts) / 1e9, (to - m->first_ts) / 1e9,
		class_name[cls == CLASS_OTHER ? CLASS_NORMAL : cls]);
}

static void account(struct model *m, int cpu, unsigned long long ts)
{
	struct cpu_state *c = &m->cpu[cpu];
	enum class cls = class_of(m, c->curr);

	if (c->seen) {
		c->residency[cls] += ts - c->since;
		timeline_segment(m, cpu, c->since, ts, cls);
	}
	c->since = ts;
}

/* How the wait of a wakee now switched in on cpu ended (see the top). */
static enum wait wait_ended(struct model *m, const struct wakeup *w, int cpu,
			    int prev, int sleeps)
{
	const struct cpu_state *t = &m->cpu[w->target];

	if (w->moved || cpu != w->target)
		return WAIT_MOVED;
	/* The first switch on the target since the wakeup, away from curr. */
	if (t->switches != w->switches + 1 || prev != w->curr)
		return WAIT_QUEUED;
	if (!prev)
		return WAIT_IDLE;
	if (sleeps)
		return WAIT_BLOCKED;
	if (w->resched) {
		m->at_once_resched++;
		return WAIT_AT_ONCE;
	}
	if (w->tick_resched)
		return WAIT_TICK;
	return t->ticks == w->ticks ? WAIT_AT_ONCE : WAIT_TICK;
}

static void on_switch(struct model *m, struct tep_record *rec, int cpu)
{
	struct cpu_state *c = &m->cpu[cpu];
	int prev = num(m->prev_pid, rec), next = num(m->next_pid, rec);
	/* The low bits are the sleep states; preemption leaves them clear. */
	int sleeps = num(m->prev_state, rec) & 0xff;
	enum wait how;
	double us;

	account(m, cpu, rec->ts);
	if (sleeps)
		rq_del(c, prev);
	rq_add(c, next);
	c->curr = next;
	c->seen = 1;
	c->switches++;
	c->ticks_at_switch = c->ticks;
	if (!valid_tid(next) || !m->wake[next].pending)
		return;
	m->wake[next].pending = 0;
	us = (rec->ts - m->wake[next].ts) / 1e3;
	samples_add(&m->lat[class_of(m, next)], us);
	if (m->wake[next].stacked)
		m->stacked_us += us;
	if (m->wake[next].classify) {
		how = wait_ended(m, &m->wake[next], cpu, prev, sleeps);
		m->wait_n[how]++;
		m->wait_us[how] += us;
	}
}

static void on_migrate(struct model *m, struct tep_record *rec)
{
	int tid = num(m->mig_pid, rec);
	int from = num(m->mig_orig, rec), to = num(m->mig_dest, rec);

	if (from < 0 || from >= m->nr_cpus || to < 0 || to >= m->nr_cpus)
		return;
	if (valid_tid(tid) && m->wake[tid].pending)
		m->wake[tid].moved = 1;
	if (rq_find(&m->cpu[from], tid) < 0)
		return;
	rq_del(&m->cpu[from], tid);
	rq_add(&m->cpu[to], tid);
}

/* trace.dat carries the guest's kallsyms, which name the hrtimer's function. */
static void on_hrtimer(struct model *m, struct tep_record *rec, int cpu)
{
	const char *fn = tep_find_function(m->tep, num(m->hrtimer_fn, rec));

	m->hrtimers++;
	if (fn && (!strcmp(fn, "tick_sched_timer") ||
		   !strcmp(fn, "tick_nohz_handler"))) {
		m->cpu[cpu].ticks++;
		m->ticks++;
	}
}

static int on_record(struct tracecmd_input *handle, struct tep_record *rec,
		     int cpu, void *data)
{
	struct model *m = data;
	int type = tep_data_type(m->tep, rec);
	int resched = !!(tep_data_flags(m->tep, rec) & TRACE_FLAG_NEED_RESCHED);

	if (cpu < 0 || cpu >= m->nr_cpus)
		return 0;
	if (rec->ts < m->last_ts)
		m->out_of_order++;
	m->last_ts = rec->ts;
	if (!m->first_ts)
		m->first_ts = rec->ts;
	m->events++;
	if (type == m->switch_id)
		on_switch(m, rec, cpu);
	else if (type == m->wakeup.id)
		on_wakeup(m, &m->wakeup, rec, cpu, resched);
	else if (type == m->wakeup_new.id)
		on_wakeup(m, &m->wakeup_new, rec, cpu, resched);
	else if (type == m->migrate_id)
		on_migrate(m, rec);
	else if (type == m->hrtimer_id)
		on_hrtimer(m, rec, cpu);
	/* What the next event on this CPU compares need_resched with. */
	m->cpu[cpu].resched = resched;
	return 0;
}

static void print_residency(struct model *m)
{
	unsigned long long total;
	int cpu, cls;

	for (cpu = 0; cpu < m->nr_cpus; cpu++) {
		total = 0;
		for (cls = 0; cls < NR_CLASSES; cls++)
			total += m->cpu[cpu].residency[cls];
		if (!total)
			continue;
		printf("cpu%d_normal_pct=%.2f\n", cpu, 100.0 *
		       (m->cpu[cpu].residency[CLASS_NORMAL] +
			m->cpu[cpu].residency[CLASS_OTHER]) / total);
		printf("cpu%d_sched_idle_pct=%.2f\n", cpu,
		       100.0 * m->cpu[cpu].residency[CLASS_IDLE_POLICY] / total);
		printf("cpu%d_idle_pct=%.2f\n", cpu,
		       100.0 * m->cpu[cpu].residency[CLASS_SWAPPER] / total);
	}
}

static void print_trace_results(struct model *m)
{
	int i, split;

	printf("events=%ld\ncpus=%d\n", m->events, m->nr_cpus);
	printf("span_s=%.6f\n", (m->last_ts - m->first_ts) / 1e9);
	printf("placements=%ld\nplacements_unknown_target=%ld\n",
	       m->placements, m->skipped_cold);
	printf("stacked=%ld\n", m->stacked);
	printf("stacked_pct=%.3f\n", m->placements ?
	       100.0 * m->stacked / m->placements : 0.0);
	printf("stacked_us=%.1f\n", m->stacked_us);
	printf("stacked_with_idle_cpu=%ld\n", m->stacked_idle_free);
	printf("misplaced=%ld\n", m->misplaced);
	printf("misplaced_pct=%.3f\n", m->placements ?
	       100.0 * m->misplaced / m->placements : 0.0);
	/*
	 * trace.dat has every event's format, recorded or not; a trace of a
	 * busy CPU with no tick at all did not record the hrtimers. Then no
	 * wait was seen to cross a tick: at_once holds them all.
	 */
	split = m->ticks > 0;
	printf("hrtimer_events=%ld\nwait_split_tick=%d\n", m->hrtimers, split);
	printf("resched_at_once_n=%ld\n", m->at_once_resched);
	if (!split) {
		m->wait_n[WAIT_PREEMPTED] = m->wait_n[WAIT_AT_ONCE];
		m->wait_us[WAIT_PREEMPTED] = m->wait_us[WAIT_AT_ONCE];
	}
	for (i = 0; i < NR_WAITS; i++) {
		/* Either the split classes or the one they make, not both. */
		if (split ? i == WAIT_PREEMPTED :
		    i == WAIT_AT_ONCE || i == WAIT_TICK)
			continue;
		printf("wait_%s_n=%ld\n", wait_name[i], m->wait_n[i]);
		printf("wait_%s_us=%.1f\n", wait_name[i], m->wait_n[i] ?
		       m->wait_us[i] / m->wait_n[i] : 0.0);
	}
	print_stats("lat_normal", &m->lat[CLASS_NORMAL]);
	print_stats("lat_sched_idle", &m->lat[CLASS_IDLE_POLICY]);
	print_residency(m);
}

static void parse_window(struct model *m, const char *arg)
{
	double from, len;

	if (sscanf(arg, "%lf,%lf", &from, &len) != 2 || from < 0 || len <= 0)
		die("bad window '%s', want FROM,LEN in seconds", arg);
	m->win_from = (unsigned long long)(from * 1e9);
	m->win_to = (unsigned long long)((from + len) * 1e9);
}

static void open_trace(struct model *m, struct tracecmd_input **handle,
		       const char *path)
{
	*handle = tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!*handle)
		die("cannot open trace %s", path);
	m->tep = tracecmd_get_tep(*handle);
	m->nr_cpus = tep_get_cpus(m->tep);
	if (m->nr_cpus <= 0 || m->nr_cpus > MAX_CPUS)
		die("%s: unsupported CPU count", path);
	find_events(m);
}

static int cmd_trace(int argc, char **argv)
{
	static struct model m;
	struct tracecmd_input *handle;
	const char *tasks = NULL, *timeline = NULL, *window = NULL;
	int opt;

	while ((opt = getopt(argc, argv, "t:T:w:")) != -1) {
		if (opt == 't')
			tasks = optarg;
		else if (opt == 'T')
			timeline = optarg;
		else if (opt == 'w')
			window = optarg;
		else
			return 2;
	}
	if (optind != argc - 1)
		die("%s", "trace: give one trace.dat");
	m.class = calloc(MAX_TIDS, sizeof(*m.class));
	m.wake = calloc(MAX_TIDS, sizeof(*m.wake));
	m.slow = calloc(MAX_TIDS, sizeof(*m.slow));
	if (!m.class || !m.wake || !m.slow)
		die("%s", "out of memory");
	if (tasks)
		read_tasks(&m, tasks);
	open_trace(&m, &handle, argv[optind]);
	m.win_to = ~0ULL;
	if (window)
		parse_window(&m, window);
	/* Times, the window's included, count from the trace's first event. */
	m.first_ts = tracecmd_get_first_ts(handle);
	m.win_from += m.first_ts;
	if (window)
		m.win_to += m.first_ts;
	if (timeline) {
		m.timeline = fopen(timeline, "w");
		if (!m.timeline)
			die("cannot write %s", timeline);
	}
	tracecmd_iterate_events(handle, NULL, 0, on_record, &m);
	if (m.out_of_order)
		die("%s", "trace events came out of time order");
	if (!m.events)
		die("%s: no events", argv[optind]);
	print_trace_results(&m);
	if (m.timeline)
		fclose(m.timeline);
	tracecmd_close(handle);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fputs("usage: sched-idle-analyse trace [-t TASKS] [-T TIMELINE]\n"
		      "                          [-w FROM,LEN] TRACE.DAT\n", stderr);
		return 2;
	}
	if (!strcmp(argv[1], "trace"))
		return cmd_trace(argc - 1, argv + 1);
	die("unknown command '%s'", argv[1]);
	return 2;
}
