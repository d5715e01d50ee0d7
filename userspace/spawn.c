// SPDX-License-Identifier: GPL-2.0
/*
 * -c / -- COMMAND under ptrace, from a tracer thread; see spawn.h.
 *
 * ptrace requests come from the thread that attached, so everything about
 * the traced processes happens in the tracer thread: it forks the command
 * (held on a pipe before its exec), seizes it, and then waits for SIGCHLD
 * (a signalfd: SIGCHLD is blocked in every thread) or a word from the
 * caller (an eventfd) and handles each stop as strace does.  The caller
 * gets events through a queue and answers through spawn_release().
 *
 * The loader breakpoint: an int3 written over the first byte of
 * _dl_debug_state with PTRACE_POKETEXT (the page is the process's private
 * copy), as gdb does.  At a hit the original word is put back and the
 * instruction pointer moved back onto it; if the loader's state is not
 * RT_CONSISTENT yet, one single step runs the instruction and the
 * breakpoint goes back in.  Once consistent it stays out: only then may
 * constructors start threads, which a breakpoint would kill (their SIGTRAP
 * is not ours to take: threads are not traced).
 *
 * From then on the loader is watched with a hardware breakpoint on
 * _dl_debug_state (debug registers DR0/DR7, PTRACE_POKEUSER), which
 * belongs to the traced thread alone: a thread it starts does not inherit
 * it (nor does a child; an exec clears it), so nothing untraced can take
 * its trap.  Each dlopen() or dlclose() of that thread reports through
 * _dl_debug_state (RT_ADD or RT_DELETE, then RT_CONSISTENT); at
 * RT_CONSISTENT the process is held (SPAWN_EV_MAPPED) while its new
 * objects are mapped and not yet run, then goes on (the kernel sets the
 * resume flag: the instruction runs without trapping again).  Other
 * threads' dlopen() calls are not seen.  It is armed one single step past
 * the held instruction (armed at it, it would trap at once), and taken
 * out before any detach, or the untraced process would die of its trap.
 */
#include "spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <link.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ptrace.h>
#include <sys/signalfd.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "loader.h"

#define INT3	0xccUL

struct tracee {
	pid_t pid;
	bool held;		/* stopped at an event the caller must answer */
	bool detaching;		/* interrupted, to be let go at its stop */
	bool bp_set;		/* the loader breakpoint is in */
	bool stepping;		/* single-stepping over the breakpoint's instruction */
	bool hw_pending;	/* arm the hardware breakpoint once past the held instruction */
	bool hw_stepping;	/* single-stepping past it to arm it */
	bool hw_early;		/* armed before that instruction ran: its trap is no dlopen */
	bool hw_set;		/* the hardware breakpoint is armed */
	struct loader_hook hook;
	long saved;		/* the word the breakpoint replaced */
};

struct spawn {
	char *const *argv;
	bool follow_forks;
	sigset_t child_mask;	/* the command's signal mask: the caller's */
	int go[2];		/* a byte lets the held child exec */
	int report[2];		/* the child's errno if its exec failed (close-on-exec) */
	int sigfd;		/* SIGCHLD, for the tracer */
	int cmd_fd;		/* the caller's word to the tracer */
	int ev_fd;		/* the tracer's word to the caller */
	pthread_t thread;
	bool thread_started;

	pthread_mutex_t lock;
	pthread_cond_t started_cond;
	/* Under lock. */
	bool started;
	int start_errno;
	struct mt_err start_err;
	pid_t leader;
	bool execed;		/* spawn_exec() let it go */
	struct spawn_event *events;
	size_t nr_events, cap_events;
	pid_t *releases;
	size_t nr_releases, cap_releases;
	bool finish;

	/* The tracer thread's own. */
	struct tracee *tracees;
	size_t nr_tracees, cap_tracees;
	bool finishing;
};

static void wake(int fd)
{
	uint64_t one = 1;

	if (write(fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		return;
}

static void drain(int fd)
{
	char buf[sizeof(struct signalfd_siginfo)];

	while (read(fd, buf, sizeof(buf)) > 0)
		;
}

/* ---- the tracer's table ------------------------------------------------ */

static struct tracee *tracee_find(struct spawn *s, pid_t pid)
{
	for (size_t i = 0; i < s->nr_tracees; i++)
		if (s->tracees[i].pid == pid)
			return &s->tracees[i];
	return NULL;
}

static struct tracee *tracee_add(struct spawn *s, pid_t pid)
{
	struct tracee *t = tracee_find(s, pid);

	if (t)
		return t;
	if (s->nr_tracees == s->cap_tracees) {
		size_t cap = s->cap_tracees ? s->cap_tracees * 2 : 8;
		struct tracee *v = realloc(s->tracees, cap * sizeof(*v));

		if (!v)
			return NULL;
		s->tracees = v;
		s->cap_tracees = cap;
	}
	t = &s->tracees[s->nr_tracees++];
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	return t;
}

static void tracee_remove(struct spawn *s, struct tracee *t)
{
	*t = s->tracees[--s->nr_tracees];
}

static void push_event(struct spawn *s, const struct spawn_event *ev)
{
	pthread_mutex_lock(&s->lock);
	if (s->nr_events == s->cap_events) {
		size_t cap = s->cap_events ? s->cap_events * 2 : 16;
		struct spawn_event *v = realloc(s->events, cap * sizeof(*v));

		if (v) {
			s->events = v;
			s->cap_events = cap;
		}
	}
	if (s->nr_events < s->cap_events)
		s->events[s->nr_events++] = *ev;
	wake(s->ev_fd);
	pthread_mutex_unlock(&s->lock);
}

/* ---- the loader breakpoint ---------------------------------------------- */

static int bp_insert(struct tracee *t)
{
	long word;

	errno = 0;
	word = ptrace(PTRACE_PEEKTEXT, t->pid, (void *)t->hook.brk, NULL);
	if (errno)
		return -errno;
	if (ptrace(PTRACE_POKETEXT, t->pid, (void *)t->hook.brk,
		   (void *)(((unsigned long)word & ~0xffUL) | INT3)))
		return -errno;
	t->saved = word;
	t->bp_set = true;
	return 0;
}

static void bp_remove(struct tracee *t)
{
	if (t->bp_set)
		ptrace(PTRACE_POKETEXT, t->pid, (void *)t->hook.brk, (void *)t->saved);
	t->bp_set = false;
}

/* DR0 on _dl_debug_state's first instruction (DR7: L0, execute, 1 byte), or off. */
#define DR7_L0	1UL

static void hw_write(struct tracee *t, unsigned long dr0, unsigned long dr7)
{
	if (dr7 && ptrace(PTRACE_POKEUSER, t->pid, (void *)offsetof(struct user, u_debugreg[0]),
			  (void *)dr0))
		return;
	if (!ptrace(PTRACE_POKEUSER, t->pid, (void *)offsetof(struct user, u_debugreg[7]),
		    (void *)dr7))
		t->hw_set = dr7 != 0;
}

/*
 * Whether a hardware breakpoint set through ptrace traps on this machine.
 * Some virtual machines (Firecracker's, seen here) take the debug
 * registers' writes and never trap: the watch would be silently blind.
 * Tried once, on a child of our own stopped by PTRACE_TRACEME.
 */
static __attribute__((noinline)) void hw_selftest_target(void)
{
	__asm__ volatile("" ::: "memory");
}

static bool hw_watch_ok;

static void hw_selftest(void)
{
	unsigned long dr0 = (unsigned long)hw_selftest_target;
	bool armed = false;
	siginfo_t si;
	int status, sig;
	pid_t pid;

	/* Unknown (no child, no ptrace, a signal ended it): assume it works. */
	hw_watch_ok = true;
	pid = fork();
	if (pid < 0)
		return;
	if (!pid) {
		if (!ptrace(PTRACE_TRACEME, 0, NULL, NULL) && !raise(SIGSTOP))
			hw_selftest_target();
		_exit(0);
	}
	/* Bounded: a stream of signals from outside leaves it unknown. */
	for (int stops = 0; stops < 16; stops++) {
		if (waitpid(pid, &status, 0) != pid) {
			if (errno == EINTR)
				continue;
			return;		/* reaped already (SIGCHLD ignored) */
		}
		if (!WIFSTOPPED(status)) {
			/* Ran to its end past an armed breakpoint: no trap. */
			if (armed && WIFEXITED(status))
				hw_watch_ok = false;
			return;
		}
		sig = WSTOPSIG(status);
		if (!armed && sig == SIGSTOP) {
			if (ptrace(PTRACE_POKEUSER, pid,
				   (void *)offsetof(struct user, u_debugreg[0]), (void *)dr0) ||
			    ptrace(PTRACE_POKEUSER, pid,
				   (void *)offsetof(struct user, u_debugreg[7]), (void *)DR7_L0))
				break;
			armed = true;
			sig = 0;
		} else if (armed && sig == SIGTRAP && !ptrace(PTRACE_GETSIGINFO, pid, NULL, &si) &&
			   si.si_code == TRAP_HWBKPT) {
			break;		/* it traps */
		}
		/* Any other signal is the child's own: delivered, then wait on. */
		if (ptrace(PTRACE_CONT, pid, NULL, (void *)(long)sig))
			break;
	}
	/* Stopped (traced) or still running: it is ours to end and reap. */
	kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
}

bool spawn_loader_watch_works(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, hw_selftest);
	return hw_watch_ok;
}

static void hw_arm(struct tracee *t)
{
	hw_write(t, t->hook.brk, DR7_L0);
}

static void hw_disarm(struct tracee *t)
{
	if (t->hw_set)
		hw_write(t, 0, 0);
	t->hw_pending = t->hw_stepping = t->hw_early = false;
}

/* The stop is the hardware breakpoint's trap (not a SIGTRAP of the program's). */
static bool hw_trapped(struct tracee *t)
{
	siginfo_t si;

	return t->hw_set && !ptrace(PTRACE_GETSIGINFO, t->pid, NULL, &si) &&
	       si.si_signo == SIGTRAP && si.si_code == TRAP_HWBKPT;
}

/* Lets a stopped tracee run on, delivering sig. */
static void resume(struct tracee *t, int sig)
{
	/* A signal stopped it before the single step ran: the step is not needed. */
	if (t->stepping) {
		t->stepping = false;
		bp_insert(t);
	}
	/* Past the held instruction first, then the watch on the loader. */
	if (t->hw_pending && !sig) {
		t->hw_pending = false;
		t->hw_stepping = true;
		if (!ptrace(PTRACE_SINGLESTEP, t->pid, NULL, NULL))
			return;
		t->hw_stepping = false;
		hw_arm(t);
	} else if (t->hw_pending || t->hw_stepping) {
		/*
		 * A signal first: armed now, while the tracee may still be at
		 * the held instruction, so the watch's first trap may be that
		 * instruction's.  on_trap() lets it pass: a real dlopen() or
		 * dlclose() traps twice (RT_ADD/RT_DELETE, then RT_CONSISTENT),
		 * and only the second is held.
		 */
		t->hw_pending = t->hw_stepping = false;
		t->hw_early = true;
		hw_arm(t);
	}
	ptrace(PTRACE_CONT, t->pid, NULL, (void *)(long)sig);
}

static void hold(struct spawn *s, struct tracee *t, enum spawn_event_kind kind, bool loaded)
{
	struct spawn_event ev = { .kind = kind, .pid = t->pid, .loaded = loaded };

	t->held = true;
	push_event(s, &ev);
}

/* An exec: run it to its loader's report, or hold it now if static. */
static void on_exec(struct spawn *s, struct tracee *t)
{
	struct mt_err ignored;

	/* An exec clears the debug registers. */
	t->bp_set = t->stepping = t->hw_pending = t->hw_stepping = t->hw_set = false;
	t->hw_early = false;
	if (loader_find(t->pid, &t->hook, &ignored) == 0 && bp_insert(t) == 0)
		resume(t, 0);
	else
		hold(s, t, SPAWN_EV_IMAGE, false);
}

/* A SIGTRAP: ours if it is the breakpoint or the step over it. */
static bool on_trap(struct spawn *s, struct tracee *t)
{
	struct user_regs_struct regs;
	long state;

	if (t->hw_stepping) {
		t->hw_stepping = false;
		hw_arm(t);
		ptrace(PTRACE_CONT, t->pid, NULL, NULL);
		return true;
	}
	if (hw_trapped(t)) {
		if (t->hw_early) {
			t->hw_early = false;
			ptrace(PTRACE_CONT, t->pid, NULL, NULL);
			return true;
		}
		/* A dlopen() or dlclose() of the traced thread: hold it once they are done. */
		errno = 0;
		state = t->hook.r_state ?
			ptrace(PTRACE_PEEKDATA, t->pid, (void *)t->hook.r_state, NULL) :
			RT_CONSISTENT;
		if (errno || (int)state == RT_CONSISTENT)
			hold(s, t, SPAWN_EV_MAPPED, true);
		else
			ptrace(PTRACE_CONT, t->pid, NULL, NULL);
		return true;
	}
	if (t->stepping) {
		t->stepping = false;
		if (bp_insert(t))
			hold(s, t, SPAWN_EV_IMAGE, false);	/* probe what is there */
		else
			resume(t, 0);
		return true;
	}
	if (!t->bp_set || ptrace(PTRACE_GETREGS, t->pid, NULL, &regs) ||
	    regs.rip - 1 != t->hook.brk)
		return false;
	bp_remove(t);
	regs.rip = t->hook.brk;
	ptrace(PTRACE_SETREGS, t->pid, NULL, &regs);
	errno = 0;
	state = t->hook.r_state ?
		ptrace(PTRACE_PEEKDATA, t->pid, (void *)t->hook.r_state, NULL) : RT_CONSISTENT;
	/* A little-endian word: r_state is its low 32 bits. */
	if (errno || (int)state == RT_CONSISTENT) {
		/* Watch its dlopen()s from here on, where a watch traps. */
		t->hw_pending = spawn_loader_watch_works();
		hold(s, t, SPAWN_EV_IMAGE, true);
		return true;
	}
	t->stepping = true;
	if (ptrace(PTRACE_SINGLESTEP, t->pid, NULL, NULL)) {
		t->stepping = false;
		hold(s, t, SPAWN_EV_IMAGE, false);
	}
	return true;
}

static void detach(struct spawn *s, struct tracee *t, int sig)
{
	bp_remove(t);
	hw_disarm(t);
	ptrace(PTRACE_DETACH, t->pid, NULL, (void *)(long)sig);
	tracee_remove(s, t);
}

/* ---- stops -------------------------------------------------------------- */

static bool is_stop_signal(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

static void on_status(struct spawn *s, pid_t pid, int status)
{
	struct tracee *t = tracee_find(s, pid);
	unsigned int event;
	unsigned long msg;
	int sig;

	if (WIFEXITED(status) || WIFSIGNALED(status)) {
		if (t)
			tracee_remove(s, t);
		if (pid == s->leader) {
			struct spawn_event ev = { .kind = SPAWN_EV_ENDED, .pid = pid,
						  .status = status };

			push_event(s, &ev);
		}
		return;
	}
	if (!WIFSTOPPED(status))
		return;
	/* A child seized with its parent may stop before the parent's event says so. */
	if (!t)
		t = tracee_add(s, pid);
	if (!t)
		return;
	sig = WSTOPSIG(status);
	event = (unsigned int)status >> 16;
	if (s->finishing) {
		/* A signal it was about to take is delivered as it goes. */
		detach(s, t, event == 0 && !(sig == SIGTRAP && (t->stepping || t->hw_stepping ||
								 hw_trapped(t))) ? sig : 0);
		return;
	}
	switch (event) {
	case PTRACE_EVENT_EXEC:
		on_exec(s, t);
		break;
	case PTRACE_EVENT_EXIT:
		hold(s, t, SPAWN_EV_EXITING, false);
		break;
	case PTRACE_EVENT_FORK:
	case PTRACE_EVENT_VFORK:
	case PTRACE_EVENT_CLONE:
		if (ptrace(PTRACE_GETEVENTMSG, pid, NULL, &msg) == 0) {
			tracee_add(s, (pid_t)msg);
			t = tracee_find(s, pid);	/* the table may have moved */
		}
		if (t)
			resume(t, 0);
		break;
	case PTRACE_EVENT_STOP:
		/*
		 * A group-stop (Ctrl+Z, SIGSTOP): stay stopped, as untraced, yet
		 * wake on SIGCONT.  Else a new child's first stop.
		 */
		if (is_stop_signal(sig))
			ptrace(PTRACE_LISTEN, pid, NULL, NULL);
		else
			resume(t, 0);
		break;
	case 0:
		if (sig == SIGTRAP && on_trap(s, t))
			break;
		resume(t, sig);		/* the command's own signal */
		break;
	default:
		resume(t, 0);
		break;
	}
}

/* The caller's releases, and its wish to finish. */
static void take_commands(struct spawn *s)
{
	pid_t *rel;
	size_t nr;
	bool finish;

	pthread_mutex_lock(&s->lock);
	rel = s->releases;
	nr = s->nr_releases;
	s->releases = NULL;
	s->nr_releases = s->cap_releases = 0;
	finish = s->finish;
	pthread_mutex_unlock(&s->lock);
	for (size_t i = 0; i < nr; i++) {
		struct tracee *t = tracee_find(s, rel[i]);

		if (t && t->held) {
			t->held = false;
			resume(t, 0);
		}
	}
	free(rel);
	if (finish && !s->finishing) {
		s->finishing = true;
		/* Stopped ones go now; running ones at the stop an interrupt brings. */
		for (size_t i = s->nr_tracees; i-- > 0;) {
			struct tracee *t = &s->tracees[i];

			if (t->held)
				detach(s, t, 0);
			else if (ptrace(PTRACE_INTERRUPT, t->pid, NULL, NULL))
				tracee_remove(s, t);	/* gone already */
		}
	}
}

static void __attribute__((noreturn)) run_child(struct spawn *s)
{
	char go;
	int e;

	pthread_sigmask(SIG_SETMASK, &s->child_mask, NULL);
	if (read(s->go[0], &go, 1) != 1)
		_exit(127);	/* memtrace-read gave up */
	execvp(s->argv[0], s->argv);
	e = errno;
	if (write(s->report[1], &e, sizeof(e)) < 0)
		_exit(126);
	_exit(e == ENOENT ? 127 : 126);
}

static void *tracer_main(void *arg)
{
	struct spawn *s = arg;
	pid_t pid;
	int opts = PTRACE_O_TRACEEXEC | PTRACE_O_TRACEEXIT;

	if (s->follow_forks)
		opts |= PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK;
	pid = fork();
	if (pid == 0)
		run_child(s);
	close(s->go[0]);
	close(s->report[1]);
	s->go[0] = s->report[1] = -1;
	pthread_mutex_lock(&s->lock);
	if (pid < 0) {
		s->start_errno = errno;
		mt_errf(&s->start_err, errno, "fork: %s", strerror(errno));
	} else if (ptrace(PTRACE_SEIZE, pid, NULL, (void *)(long)opts) || !tracee_add(s, pid)) {
		s->start_errno = errno ? errno : ENOMEM;
		mt_errf(&s->start_err, s->start_errno, "cannot trace the command (ptrace): %s",
			strerror(s->start_errno));
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	} else {
		s->leader = pid;
	}
	s->started = true;
	pthread_cond_signal(&s->started_cond);
	pthread_mutex_unlock(&s->lock);
	if (!s->leader)
		return NULL;

	for (;;) {
		struct pollfd p[2] = { { s->sigfd, POLLIN, 0 }, { s->cmd_fd, POLLIN, 0 } };
		int status;

		/*
		 * SIGCHLD is process-directed: a thread of the caller's that
		 * does not block it (one made before spawn_start(), a
		 * library's) takes it and, its action being to ignore it,
		 * drops it, and the signalfd never hears of that tracee's
		 * stop.  Looking every 100 ms as well bounds what a lost
		 * SIGCHLD costs (a Ctrl+Z'd command left stopped after fg, a
		 * held one never handed on).
		 */
		if (poll(p, 2, 100) < 0 && errno != EINTR)
			break;
		drain(s->sigfd);
		drain(s->cmd_fd);
		take_commands(s);
		/*
		 * __WNOTHREAD: only this thread's children and tracees.  Else a
		 * wait in another of the caller's threads' (another spawn's
		 * tracer, a system()) and this one take each other's events.
		 */
		while ((pid = waitpid(-1, &status, __WALL | __WNOTHREAD | WNOHANG)) > 0)
			on_status(s, pid, status);
		if (pid < 0 && errno == ECHILD)
			s->nr_tracees = 0;
		if (s->finishing && !s->nr_tracees)
			break;
	}
	return NULL;
}

/* ---- the caller's side -------------------------------------------------- */

static void spawn_free(struct spawn *s)
{
	int fds[] = { s->go[0], s->go[1], s->report[0], s->report[1], s->sigfd, s->cmd_fd,
		      s->ev_fd };

	for (size_t i = 0; i < MT_ARRAY_SIZE(fds); i++)
		if (fds[i] >= 0)
			close(fds[i]);
	pthread_mutex_destroy(&s->lock);
	pthread_cond_destroy(&s->started_cond);
	free(s->events);
	free(s->releases);
	free(s->tracees);
	free(s);
}

int spawn_start(char *const argv[], bool follow_forks, struct spawn **out,
		struct mt_err *err)
{
	struct spawn *s = calloc(1, sizeof(*s));
	sigset_t chld, all, caller_mask;
	int ret;

	if (!s)
		return mt_errf(err, ENOMEM, "out of memory");
	/* Before SIGCHLD is the tracer's: the self-test waits for its own child. */
	spawn_loader_watch_works();
	s->argv = argv;
	s->follow_forks = follow_forks;
	s->go[0] = s->go[1] = s->report[0] = s->report[1] = -1;
	s->sigfd = s->cmd_fd = s->ev_fd = -1;
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->started_cond, NULL);
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	/*
	 * The command gets the caller's mask, but for the stop signals the
	 * reader takes by its signalfd; SIGCHLD goes to the tracer's.
	 */
	pthread_sigmask(SIG_BLOCK, &chld, &s->child_mask);
	stop_signals_unblocked(&s->child_mask);
	if (pipe2(s->go, O_CLOEXEC) || pipe2(s->report, O_CLOEXEC) ||
	    (s->sigfd = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK)) < 0 ||
	    (s->cmd_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0 ||
	    (s->ev_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0) {
		ret = mt_errf(err, errno, "cannot set up the command: %s", strerror(errno));
		spawn_free(s);
		return ret;
	}
	/*
	 * The tracer thread blocks every signal: one sent to the process
	 * (Ctrl+C, kill) is the caller's to take, by its own signalfd or
	 * handler; a thread that did not block it could end the process by
	 * its default action first.
	 */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &caller_mask);
	ret = pthread_create(&s->thread, NULL, tracer_main, s);
	pthread_sigmask(SIG_SETMASK, &caller_mask, NULL);
	if (ret) {
		ret = mt_errf(err, ret, "cannot start the tracer thread: %s", strerror(ret));
		spawn_free(s);
		return ret;
	}
	s->thread_started = true;
	pthread_mutex_lock(&s->lock);
	while (!s->started)
		pthread_cond_wait(&s->started_cond, &s->lock);
	pthread_mutex_unlock(&s->lock);
	if (!s->leader) {
		*err = s->start_err;
		ret = -s->start_errno;
		pthread_join(s->thread, NULL);
		spawn_free(s);
		return ret;
	}
	*out = s;
	return 0;
}

pid_t spawn_pid(const struct spawn *s)
{
	return s->leader;
}

int spawn_exec(struct spawn *s, struct mt_err *err)
{
	int child_errno = 0;
	ssize_t got;

	pthread_mutex_lock(&s->lock);
	s->execed = true;
	pthread_mutex_unlock(&s->lock);
	if (write(s->go[1], "g", 1) != 1)
		return mt_errf(err, errno, "cannot start the command: %s", strerror(errno));
	close(s->go[1]);
	s->go[1] = -1;
	/* End of file when the exec closed it (close-on-exec); else why not. */
	do {
		got = read(s->report[0], &child_errno, sizeof(child_errno));
	} while (got < 0 && errno == EINTR);
	if (got == sizeof(child_errno))
		return mt_errf(err, child_errno, "cannot run '%s': %s", s->argv[0],
			       strerror(child_errno));
	return 0;
}

int spawn_event_fd(const struct spawn *s)
{
	return s->ev_fd;
}

bool spawn_next(struct spawn *s, struct spawn_event *ev)
{
	bool got = false;

	pthread_mutex_lock(&s->lock);
	if (s->nr_events) {
		*ev = s->events[0];
		memmove(s->events, s->events + 1, --s->nr_events * sizeof(*ev));
		got = true;
	}
	if (!s->nr_events)
		drain(s->ev_fd);
	pthread_mutex_unlock(&s->lock);
	return got;
}

void spawn_release(struct spawn *s, pid_t pid)
{
	pthread_mutex_lock(&s->lock);
	if (s->nr_releases == s->cap_releases) {
		size_t cap = s->cap_releases ? s->cap_releases * 2 : 8;
		pid_t *v = realloc(s->releases, cap * sizeof(*v));

		if (v) {
			s->releases = v;
			s->cap_releases = cap;
		}
	}
	if (s->nr_releases < s->cap_releases)
		s->releases[s->nr_releases++] = pid;
	wake(s->cmd_fd);
	pthread_mutex_unlock(&s->lock);
}

void spawn_finish(struct spawn *s)
{
	if (!s)
		return;
	pthread_mutex_lock(&s->lock);
	if (!s->execed)
		kill(s->leader, SIGKILL);	/* it never ran */
	s->finish = true;
	wake(s->cmd_fd);
	pthread_mutex_unlock(&s->lock);
	pthread_join(s->thread, NULL);
	spawn_free(s);
}

int spawn_exit_code(int status)
{
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
