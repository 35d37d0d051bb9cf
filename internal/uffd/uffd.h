#include <stdint.h>

struct ruffd_watch;

int ruffd_open(void);
struct ruffd_watch *ruffd_new(uintptr_t start, uintptr_t len, int *err);
int ruffd_protect(struct ruffd_watch *w, int on);
int ruffd_hit(struct ruffd_watch *w);
int ruffd_close(struct ruffd_watch *w);
