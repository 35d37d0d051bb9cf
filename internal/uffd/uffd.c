//go:build linux

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "uffd.h"

#ifndef UFFD_FEATURE_WP_UNPOPULATED
#define UFFD_FEATURE_WP_UNPOPULATED (1 << 13)
#endif

struct ruffd_watch {
	uintptr_t start, len;
	int hit;       /* written since the last protect (atomic) */
	int protected; /* under mu */
	int slot;      /* index in live, under mu */
};

static int fd = -1;
static uint64_t counts[3]; /* faults served, protections set, registrations (atomic) */
static long page;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static struct ruffd_watch **live;
static int nlive, caplive;

static int wp(uintptr_t start, uintptr_t len, int on) {
	struct uffdio_writeprotect p = {.range = {.start = start, .len = len}, .mode = on ? UFFDIO_WRITEPROTECT_MODE_WP : 0};
	return ioctl(fd, UFFDIO_WRITEPROTECT, &p) ? -errno : 0;
}

/* serve resolves every write fault: it marks the watch holding the page,
   lifts the protection from all of the watch's pages (waking the writer)
   and never touches Go. A page no watch holds (a watch closed meanwhile)
   is lifted alone. */
static void *serve(void *arg) {
	(void)arg;
	struct uffd_msg msgs[16];
	for (;;) {
		ssize_t n = read(fd, msgs, sizeof msgs);
		if (n < 0) {
			/* Never gone: a protected page's writer waits for this
			   thread. */
			if (errno != EINTR && errno != EAGAIN)
				usleep(1000);
			continue;
		}
		for (ssize_t i = 0; i < n / (ssize_t)sizeof msgs[0]; i++) {
			if (msgs[i].event != UFFD_EVENT_PAGEFAULT)
				continue;
			uintptr_t a = msgs[i].arg.pagefault.address;
			__atomic_add_fetch(&counts[0], 1, __ATOMIC_RELAXED);
			uintptr_t start = a & ~(uintptr_t)(page - 1), len = page;
			pthread_mutex_lock(&mu);
			for (int k = 0; k < nlive; k++) {
				struct ruffd_watch *w = live[k];
				if (a >= w->start && a - w->start < w->len) {
					__atomic_store_n(&w->hit, 1, __ATOMIC_SEQ_CST);
					w->protected = 0;
					start = w->start;
					len = w->len;
					break;
				}
			}
			if (wp(start, len, 0) != 0) {
				struct uffdio_range r = {.start = a & ~(uintptr_t)(page - 1), .len = page};
				ioctl(fd, UFFDIO_WAKE, &r);
			}
			pthread_mutex_unlock(&mu);
		}
	}
}

int ruffd_open(void) {
	page = sysconf(_SC_PAGESIZE);
	/* Not UFFD_USER_MODE_ONLY: a write from the kernel (a driver pinning
	   the pages, read(2) into them) would fail with EFAULT there. */
	int f = syscall(SYS_userfaultfd, O_CLOEXEC);
	if (f < 0)
		return -errno;
	struct uffdio_api api = {.api = UFFD_API, .features = UFFD_FEATURE_PAGEFAULT_FLAG_WP | UFFD_FEATURE_WP_UNPOPULATED};
	if (ioctl(f, UFFDIO_API, &api) != 0) {
		int e = errno;
		close(f);
		return -e;
	}
	fd = f;
	pthread_t t;
	pthread_attr_t at;
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	/* No signal reaches the thread: it runs no Go. */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int e = pthread_create(&t, &at, serve, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&at);
	if (e != 0) {
		close(f);
		fd = -1;
		return -e;
	}
	return 0;
}

int ruffd_register(uintptr_t start, uintptr_t len) {
	struct uffdio_register r = {.range = {.start = start, .len = len}, .mode = UFFDIO_REGISTER_MODE_WP};
	__atomic_add_fetch(&counts[2], 1, __ATOMIC_RELAXED);
	return ioctl(fd, UFFDIO_REGISTER, &r) ? -errno : 0;
}

struct ruffd_watch *ruffd_new(uintptr_t start, uintptr_t len, int *err) {
	struct ruffd_watch *w = calloc(1, sizeof *w);
	if (w == NULL) {
		*err = -ENOMEM;
		return NULL;
	}
	w->start = start;
	w->len = len;
	pthread_mutex_lock(&mu);
	if (nlive == caplive) {
		int c = caplive ? 2 * caplive : 64;
		struct ruffd_watch **l = realloc(live, c * sizeof *l);
		if (l == NULL) {
			pthread_mutex_unlock(&mu);
			free(w);
			*err = -ENOMEM;
			return NULL;
		}
		live = l;
		caplive = c;
	}
	w->slot = nlive;
	live[nlive++] = w;
	pthread_mutex_unlock(&mu);
	*err = 0;
	return w;
}

/* ruffd_protect protects w's pages and clears its hit (on), or lifts the
   protection (off). Protecting a watch protected since its last hit
   costs no system call. */
int ruffd_protect(struct ruffd_watch *w, int on) {
	int e = 0;
	pthread_mutex_lock(&mu);
	if (on && !(w->protected && !__atomic_load_n(&w->hit, __ATOMIC_SEQ_CST))) {
		__atomic_store_n(&w->hit, 0, __ATOMIC_SEQ_CST);
		__atomic_add_fetch(&counts[1], 1, __ATOMIC_RELAXED);
		e = wp(w->start, w->len, 1);
		w->protected = e == 0;
	} else if (!on && w->protected) {
		e = wp(w->start, w->len, 0);
		w->protected = 0;
	}
	pthread_mutex_unlock(&mu);
	return e;
}

int ruffd_hit(struct ruffd_watch *w) { return __atomic_load_n(&w->hit, __ATOMIC_SEQ_CST); }

/* ruffd_close lifts w's protection and frees it. The registration stays
   (registering is idempotent, and unregistering could end a newer
   watch's over the same pages): unprotected pages never fault. */
int ruffd_close(struct ruffd_watch *w) {
	int e = 0;
	pthread_mutex_lock(&mu);
	if (w->protected)
		e = wp(w->start, w->len, 0);
	live[w->slot] = live[nlive - 1];
	live[w->slot]->slot = w->slot;
	nlive--;
	pthread_mutex_unlock(&mu);
	free(w);
	return e;
}

void ruffd_counts(uint64_t out[4]) {
	for (int i = 0; i < 3; i++)
		out[i] = __atomic_load_n(&counts[i], __ATOMIC_RELAXED);
	pthread_mutex_lock(&mu);
	out[3] = nlive;
	pthread_mutex_unlock(&mu);
}
