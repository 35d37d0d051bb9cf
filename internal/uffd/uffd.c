//go:build linux

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
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
	/* Under mu: a dropped range [dlo, dhi) of the pages, whose host copy
	   was let go; a touch fills it from src (n bytes at off, zeros after).
	   filling: a fill is reading the source (mu not held); gen counts the
	   drops, so a fill of an older one is not placed. filled is what the
	   last fill did (1, or its -errno), taken by ruffd_filled. */
	int dropped, filling, filled, queued;
	uint64_t gen;
	uintptr_t dlo, dhi, n, off;
	uintptr_t plo, phi; /* pages a poke lifted the protection of (mu) */
	struct ruffd_source src;
};

static int fd = -1;
/* write faults served, protections set, registrations, drops, fills (atomic) */
static uint64_t counts[5];
static long page;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t filled = PTHREAD_COND_INITIALIZER; /* a fill ended */
static pthread_cond_t work = PTHREAD_COND_INITIALIZER;   /* a fill is asked */
static struct ruffd_watch **live;
static int nlive, caplive;
/* tallies: the fills read from each key's sources (a device's); mu. */
static struct tally {
	uintptr_t key;
	uint64_t calls, bytes;
} *tallies;
static int ntally, captally;
/* zeros: what a missing page that no fill covers gets. */
#define ZEROS (1 << 16)
static char *zeros;

static int wp(uintptr_t start, uintptr_t len, int on) {
	struct uffdio_writeprotect p = {.range = {.start = start, .len = len}, .mode = on ? UFFDIO_WRITEPROTECT_MODE_WP : 0};
	return ioctl(fd, UFFDIO_WRITEPROTECT, &p) ? -errno : 0;
}

static void wake(uintptr_t start, uintptr_t len) {
	struct uffdio_range r = {.start = start, .len = len};
	ioctl(fd, UFFDIO_WAKE, &r);
}

/* place copies len bytes (page multiple) from from into the missing pages
   at start, write-protected when wprot, skipping pages already there;
   from == zeros copies zeros. It wakes the waiters. */
static int place(uintptr_t start, uintptr_t len, const char *from, int wprot) {
	while (len > 0) {
		uintptr_t k = len;
		if (from == zeros && k > ZEROS)
			k = ZEROS;
		struct uffdio_copy c = {.dst = start, .src = (uintptr_t)from, .len = k, .mode = wprot ? UFFDIO_COPY_MODE_WP : 0};
		uintptr_t done = k;
		if (ioctl(fd, UFFDIO_COPY, &c) != 0) {
			done = c.copy > 0 ? (uintptr_t)c.copy : 0;
			if (errno == EEXIST && done == 0)
				done = page; /* there already: skip it */
			else if (errno != EEXIST && errno != EAGAIN)
				return -errno;
		}
		start += done;
		len -= done;
		if (from != zeros)
			from += done;
	}
	return 0;
}

/* zeropage maps the zero page at the missing pages of [start, start+len):
   no memory until written. */
static int zeropage(uintptr_t start, uintptr_t len) {
	while (len > 0) {
		struct uffdio_zeropage z = {.range = {.start = start, .len = len}, .mode = 0};
		uintptr_t done = len;
		if (ioctl(fd, UFFDIO_ZEROPAGE, &z) != 0) {
			done = z.zeropage > 0 ? (uintptr_t)z.zeropage : 0;
			if (errno == EEXIST && done == 0)
				done = page;
			else if (errno != EEXIST && errno != EAGAIN)
				return -errno;
		}
		start += done;
		len -= done;
	}
	return 0;
}

/* restore ends w's drop without its source's bytes: the pages stay
   missing, zeros at their next touch (as untouched memory); mu held. */
static void restore(struct ruffd_watch *w) {
	wake(w->dlo, w->dhi - w->dlo);
	w->dropped = 0;
	w->gen++;
}

/* count adds a read of n bytes to key's tally; mu held. */
static void count(uintptr_t key, uintptr_t n) {
	if (key == 0)
		return;
	int k = 0;
	while (k < ntally && tallies[k].key != key)
		k++;
	if (k == ntally) {
		if (ntally == captally) {
			int c = captally ? 2 * captally : 16;
			struct tally *t = realloc(tallies, c * sizeof *t);
			if (t == NULL)
				return;
			tallies = t;
			captally = c;
		}
		tallies[ntally++] = (struct tally){.key = key};
	}
	tallies[k].calls++;
	tallies[k].bytes += n;
}

/* fill brings w's dropped range back from its source, read into C memory
   with mu released (a driver never writes a watched page, and faults
   elsewhere are served meanwhile); mu held on entry and exit. Another
   fill of w under way is waited for instead. */
static void fill(struct ruffd_watch *w) {
	while (w->filling)
		pthread_cond_wait(&filled, &mu);
	if (!w->dropped)
		return;
	w->filling = 1;
	uint64_t gen = w->gen;
	struct ruffd_source src = w->src;
	uintptr_t len = w->dhi - w->dlo, n = w->n, off = w->off;
	pthread_mutex_unlock(&mu);
	char *buf = malloc(len);
	int e = buf ? src.fn(src.a0, src.a1, off, buf, n) : -ENOMEM;
	if (e == 0)
		memset(buf + n, 0, len - n);
	pthread_mutex_lock(&mu);
	if (e == 0)
		count(src.key, n);
	if (w->dropped && w->gen == gen) {
		__atomic_add_fetch(&counts[4], 1, __ATOMIC_RELAXED); /* before the toucher wakes */
		if (e == 0)
			e = place(w->dlo, len, buf, w->protected);
		/* On an error the reader goes on with zeros; the next use reports e. */
		wake(w->dlo, len);
		w->dropped = 0;
		w->filled = e == 0 ? 1 : e;
	}
	free(buf);
	w->filling = 0;
	pthread_cond_broadcast(&filled);
}

/* filler fills the watches serve queued, so serve goes on with other
   faults while a source is read: a driver thread faulting on a page of
   a mapping it is downloading into holds the driver's locks, which the
   read may need. */
static void *filler(void *arg) {
	(void)arg;
	pthread_mutex_lock(&mu);
	for (;;) {
		struct ruffd_watch *w = NULL;
		for (int k = 0; k < nlive && w == NULL; k++)
			if (live[k]->queued)
				w = live[k];
		if (w == NULL) {
			pthread_cond_wait(&work, &mu);
			continue;
		}
		w->queued = 0;
		fill(w);
	}
}

/* serve resolves every fault and never touches Go. A touch of a dropped
   range queues its fill (the fill wakes the toucher). A write fault marks
   the watch holding the page, lifts the protection from all of its pages
   and wakes the writer. A missing page elsewhere (the first touch of a
   mapping registered with missing) gets zeros, with all its watch's
   missing pages. A page no watch holds (a watch closed meanwhile) is
   served alone. */
static void *serve(void *arg) {
	(void)arg;
	struct uffd_msg msgs[16];
	for (;;) {
		ssize_t n = read(fd, msgs, sizeof msgs);
		if (n < 0) {
			/* Never gone: a faulting thread waits for this one. */
			if (errno != EINTR && errno != EAGAIN)
				usleep(1000);
			continue;
		}
		for (ssize_t i = 0; i < n / (ssize_t)sizeof msgs[0]; i++) {
			if (msgs[i].event != UFFD_EVENT_PAGEFAULT)
				continue;
			uintptr_t a = msgs[i].arg.pagefault.address;
			int write = (msgs[i].arg.pagefault.flags & UFFD_PAGEFAULT_FLAG_WP) != 0;
			if (write) /* missing pages (Go's heap is registered for them) are not counted */
				__atomic_add_fetch(&counts[0], 1, __ATOMIC_RELAXED);
			uintptr_t pa = a & ~(uintptr_t)(page - 1);
			pthread_mutex_lock(&mu);
			struct ruffd_watch *w = NULL;
			for (int k = 0; k < nlive && w == NULL; k++)
				if (a >= live[k]->start && a - live[k]->start < live[k]->len)
					w = live[k];
			if (w != NULL && (w->dropped || w->filling) && a >= w->dlo && a < w->dhi) {
				if (!w->filling) { /* else its fill wakes the toucher */
					w->queued = 1;
					pthread_cond_broadcast(&work);
				}
			} else if (write) {
				uintptr_t start = pa, len = page;
				if (w != NULL) {
					__atomic_store_n(&w->hit, 1, __ATOMIC_SEQ_CST);
					w->protected = 0;
					start = w->start;
					len = w->len;
				}
				if (wp(start, len, 0) != 0)
					wake(pa, page);
			} else {
				/* The whole watch at once, but never over a dropped range
				   (its fill would find the pages there). */
				if (w == NULL || w->protected || w->dropped || w->filling || zeropage(w->start, w->len) != 0)
					place(pa, page, zeros, w != NULL && w->protected && !(pa >= w->plo && pa < w->phi));
				wake(pa, page);
			}
			pthread_mutex_unlock(&mu);
		}
	}
}

static int start(void *(*fn)(void *)) {
	pthread_t t;
	pthread_attr_t at;
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	/* No signal reaches the thread: it runs no Go. */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int e = pthread_create(&t, &at, fn, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&at);
	return -e;
}

int ruffd_open(void) {
	page = sysconf(_SC_PAGESIZE);
	zeros = calloc(1, ZEROS);
	if (zeros == NULL)
		return -ENOMEM;
	/* Not UFFD_USER_MODE_ONLY: a write from the kernel (a driver pinning
	   the pages, read(2) into them) would fail with EFAULT there. Refused
	   the system call (no privilege), a process that may open
	   /dev/userfaultfd (Linux 6.1 on; its mode says who) gets one there. */
	int f = syscall(SYS_userfaultfd, O_CLOEXEC);
	if (f < 0) {
		int e = errno;
		int dev = open("/dev/userfaultfd", O_RDWR | O_CLOEXEC);
		if (dev < 0)
			return -e;
		f = ioctl(dev, USERFAULTFD_IOC_NEW, O_CLOEXEC);
		close(dev);
		if (f < 0)
			return -e;
	}
	struct uffdio_api api = {.api = UFFD_API, .features = UFFD_FEATURE_PAGEFAULT_FLAG_WP | UFFD_FEATURE_WP_UNPOPULATED};
	if (ioctl(f, UFFDIO_API, &api) != 0) {
		int e = errno;
		close(f);
		return -e;
	}
	fd = f;
	int e = start(serve);
	if (e == 0)
		e = start(filler);
	if (e != 0) {
		close(f);
		fd = -1;
	}
	return e;
}

int ruffd_register(uintptr_t start, uintptr_t len, int missing) {
	struct uffdio_register r = {.range = {.start = start, .len = len}, .mode = UFFDIO_REGISTER_MODE_WP | (missing ? UFFDIO_REGISTER_MODE_MISSING : 0)};
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
	if (w->len == 0) /* a drop's only: no pages of its own */
		return 0;
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

/* ruffd_poke stores the n bytes at v to p, in a page of w, as the
   watcher's own write: no fault and no hit (the page's protection is
   lifted around the store and put back). */
int ruffd_poke(struct ruffd_watch *w, uintptr_t p, const void *v, uintptr_t n) {
	int e = 0;
	pthread_mutex_lock(&mu);
	uintptr_t lo = p & ~(uintptr_t)(page - 1), hi = (p + n + page - 1) & ~(uintptr_t)(page - 1);
	int prot = w->protected && !__atomic_load_n(&w->hit, __ATOMIC_SEQ_CST);
	if (prot && (e = wp(lo, hi - lo, 0)) != 0) {
		pthread_mutex_unlock(&mu);
		return e;
	}
	/* Unlocked: a missing page faults here, and the serve thread fills it
	   (unprotected: it is the poke's). */
	w->plo = lo;
	w->phi = hi;
	pthread_mutex_unlock(&mu);
	memcpy((void *)p, v, n);
	pthread_mutex_lock(&mu);
	w->plo = w->phi = 0;
	if (prot && w->protected && !__atomic_load_n(&w->hit, __ATOMIC_SEQ_CST))
		e = wp(lo, hi - lo, 1);
	pthread_mutex_unlock(&mu);
	return e;
}

/* ruffd_drop lets go of the host copy of [dlo, dhi), whole pages of w
   (nothing else's) in memory registered with missing: the next touch
   fills them with n bytes read from src at off, then zeros. Dropped again
   as it is, it costs nothing. */
int ruffd_drop(struct ruffd_watch *w, struct ruffd_source src, uintptr_t off, uintptr_t dlo, uintptr_t dhi, uintptr_t n) {
	int e = 0;
	pthread_mutex_lock(&mu);
	while (w->filling)
		pthread_cond_wait(&filled, &mu);
	w->filled = 0;
	if (!(w->dropped && w->dlo == dlo && w->dhi == dhi && w->n == n && w->off == off && memcmp(&w->src, &src, sizeof src) == 0)) {
		w->dropped = 0;
		w->gen++;
		if (madvise((void *)dlo, dhi - dlo, MADV_DONTNEED) != 0)
			e = -errno;
		else {
			w->src = src;
			w->off = off;
			w->dlo = dlo;
			w->dhi = dhi;
			w->n = n;
			w->dropped = 1;
			__atomic_add_fetch(&counts[3], 1, __ATOMIC_RELAXED);
		}
	}
	pthread_mutex_unlock(&mu);
	return e;
}

/* ruffd_forget ends w's drop with no fill: the source is going away and
   nothing needs its values (they read as zeros). */
void ruffd_forget(struct ruffd_watch *w) {
	pthread_mutex_lock(&mu);
	while (w->filling)
		pthread_cond_wait(&filled, &mu);
	if (w->dropped)
		restore(w);
	w->filled = 0;
	pthread_mutex_unlock(&mu);
}

/* ruffd_filled returns what filled w since the last call (0: nothing, 1:
   a fill, else its -errno) and whether w is dropped still. */
int ruffd_filled(struct ruffd_watch *w, int *dropped) {
	pthread_mutex_lock(&mu);
	while (w->filling)
		pthread_cond_wait(&filled, &mu);
	int f = w->filled;
	w->filled = 0;
	*dropped = w->dropped;
	pthread_mutex_unlock(&mu);
	return f;
}

/* ruffd_settle makes every dropped range that [p, p+n) touches whole,
   before a driver reads or writes there (it must never fault on a page
   whose fill goes through a driver): filled from its source, or, where
   over is set and [p, p+n) covers it, zeros (the caller overwrites it). */
int ruffd_settle(uintptr_t p, uintptr_t n, int over) {
	int e = 0;
	pthread_mutex_lock(&mu);
	for (int k = 0; k < nlive; k++) {
		struct ruffd_watch *w = live[k];
		if (!(w->dropped || w->filling) || p >= w->dhi || p + n <= w->dlo)
			continue;
		if (over && !w->filling && p <= w->dlo && p + n >= w->dlo + w->n) {
			restore(w);
			continue;
		}
		fill(w); /* releases mu: live may change */
		if (w->filled < 0 && e == 0)
			e = w->filled;
		k = -1;
	}
	pthread_mutex_unlock(&mu);
	return e;
}

/* ruffd_close lifts w's protection and frees it, its drop forgotten. The
   registration stays (registering is idempotent, and unregistering could
   end a newer watch's over the same pages): unprotected pages never
   fault, and missing ones get zeros. */
int ruffd_close(struct ruffd_watch *w) {
	int e = 0;
	pthread_mutex_lock(&mu);
	while (w->filling)
		pthread_cond_wait(&filled, &mu);
	if (w->dropped)
		restore(w);
	if (w->protected)
		e = wp(w->start, w->len, 0);
	live[w->slot] = live[nlive - 1];
	live[w->slot]->slot = w->slot;
	nlive--;
	pthread_mutex_unlock(&mu);
	free(w);
	return e;
}

void ruffd_counts(uint64_t out[6]) {
	for (int i = 0; i < 5; i++)
		out[i] = __atomic_load_n(&counts[i], __ATOMIC_RELAXED);
	pthread_mutex_lock(&mu);
	out[5] = nlive;
	pthread_mutex_unlock(&mu);
}

/* ruffd_memcpy is the source of memory the host reads (a simulated
   device's): a0 is its address. */
int ruffd_memcpy(uintptr_t a0, uintptr_t a1, uintptr_t off, void *dst, uintptr_t n) {
	(void)a1;
	memcpy(dst, (const char *)a0 + off, n);
	return 0;
}

/* ruffd_tally reads key's tally into out (calls, bytes), and ends it
   when end is set (its device closed: a new one may reuse the key). */
void ruffd_tally(uintptr_t key, int end, uint64_t out[2]) {
	out[0] = out[1] = 0;
	pthread_mutex_lock(&mu);
	for (int k = 0; k < ntally; k++)
		if (tallies[k].key == key) {
			out[0] = tallies[k].calls;
			out[1] = tallies[k].bytes;
			if (end)
				tallies[k] = tallies[--ntally];
			break;
		}
	pthread_mutex_unlock(&mu);
}
