// The ctx table (ctx.h): which user_contexts are the library's own.
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "ctx.h"

void gohl_ctx_init(gohl_ctx *c) { memset(c, 0, sizeof *c); }

// cur is the ctx of the call running on this thread, for pipelines built
// without user_context; it is only read inside the same C call.
static __thread gohl_ctx *cur;

gohl_ctx *gohl_current_ctx(void) { return cur; }

gohl_ctx *gohl_swap_current(gohl_ctx *c) {
    gohl_ctx *was = cur;
    cur = c;
    return was;
}

// A user_context is opaque: a C caller passes its own (Halide's
// user_context aottest passes 0xf00dd00d), so it is never dereferenced.
// The library's own ctxs are recognized by address: every frame's ctx is
// registered for the frame's life, and a ctx on the stack for the runtime
// calls it is passed to (ctx_enter/ctx_leave). The table is read only when
// a user_context is not this thread's call: on errors, and by acquires on
// worker threads or outside calls. Duplicates are allowed (nested enters).
static pthread_mutex_t ctx_mu = PTHREAD_MUTEX_INITIALIZER;
static const gohl_ctx **ctxs;
static int nctxs, capctxs;

static int ctx_enter(const gohl_ctx *c) {
    pthread_mutex_lock(&ctx_mu);
    if (nctxs == capctxs) {
        int n = capctxs ? 2 * capctxs : 64;
        const gohl_ctx **t = realloc(ctxs, n * sizeof *t);
        if (!t) {
            pthread_mutex_unlock(&ctx_mu);
            return 0;  // unknown to the table: its errors go to the thread's call or stderr
        }
        ctxs = t;
        capctxs = n;
    }
    ctxs[nctxs++] = c;
    pthread_mutex_unlock(&ctx_mu);
    return 1;
}

static void ctx_leave(const gohl_ctx *c) {
    pthread_mutex_lock(&ctx_mu);
    for (int i = nctxs - 1; i >= 0; i--) {
        if (ctxs[i] == c) {
            ctxs[i] = ctxs[--nctxs];
            break;
        }
    }
    pthread_mutex_unlock(&ctx_mu);
}

int gohl_ctx_enter(const gohl_ctx *c) { return ctx_enter(c); }
void gohl_ctx_leave(const gohl_ctx *c) { ctx_leave(c); }

// own_ctx is uc when it is one of the library's live ctxs, else NULL; it
// compares addresses only.
static gohl_ctx *own_ctx(void *uc) {
    if (!uc) return NULL;
    if (uc == (void *)cur) return cur;
    int found = 0;
    pthread_mutex_lock(&ctx_mu);
    for (int i = 0; i < nctxs && !found; i++) found = (void *)ctxs[i] == uc;
    pthread_mutex_unlock(&ctx_mu);
    return found ? (gohl_ctx *)uc : NULL;
}

gohl_ctx *gohl_own_ctx(void *uc) {
    gohl_ctx *c = own_ctx(uc);
    return c ? c : cur;
}

// Each message as given, NUL-terminated: Go keeps them exact
// (Error.HalideMsg) and tidies them for Error.Msg.
void gohl_ctx_append(gohl_ctx *c, const char *msg) {
    size_t n = strlen(msg);
    int room = GOHL_MSG - 1 - c->len;
    if (room <= 0) return;
    if ((int)n > room) n = room;
    memcpy(c->msg + c->len, msg, n);
    c->len += n;
    c->msg[c->len++] = 0;
}
