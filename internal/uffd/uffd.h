#include <stdint.h>

struct ruffd_watch;

int ruffd_open(void);
int ruffd_register(uintptr_t start, uintptr_t len);
struct ruffd_watch *ruffd_new(uintptr_t start, uintptr_t len, int *err);
int ruffd_protect(struct ruffd_watch *w, int on);
int ruffd_hit(struct ruffd_watch *w);
int ruffd_close(struct ruffd_watch *w);
void ruffd_counts(uint64_t out[4]);
