#include <stdint.h>

struct ruffd_watch;

/* A source of a dropped range's bytes: fn reads n bytes at off of the
   memory a0 and a1 name into dst, waiting for the work queued on it,
   from any thread, and returns 0 or a negative error. */
typedef int (*ruffd_read_fn)(uintptr_t a0, uintptr_t a1, uintptr_t off, void *dst, uintptr_t n);
struct ruffd_source {
	ruffd_read_fn fn;
	uintptr_t a0, a1;
	uintptr_t key; /* whose fills these are (ruffd_tally); 0: no one's */
};

int ruffd_open(void);
int ruffd_register(uintptr_t start, uintptr_t len, int missing);
struct ruffd_watch *ruffd_new(uintptr_t start, uintptr_t len, int *err);
int ruffd_protect(struct ruffd_watch *w, int on);
int ruffd_hit(struct ruffd_watch *w);
int ruffd_poke(struct ruffd_watch *w, uintptr_t p, const void *v, uintptr_t n);
int ruffd_drop(struct ruffd_watch *w, struct ruffd_source src, uintptr_t off, uintptr_t dlo, uintptr_t dhi, uintptr_t n);
int ruffd_filled(struct ruffd_watch *w, int *dropped);
int ruffd_settle(uintptr_t p, uintptr_t n, int over);
void ruffd_forget(struct ruffd_watch *w);
int ruffd_close(struct ruffd_watch *w);
void ruffd_counts(uint64_t out[6]);
void ruffd_tally(uintptr_t key, int end, uint64_t out[2]);
int ruffd_memcpy(uintptr_t a0, uintptr_t a1, uintptr_t off, void *dst, uintptr_t n);
