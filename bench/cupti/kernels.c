// kernels.c: a kernel-time table for any CUDA program on a machine with
// CUPTI but no Nsight Systems (the loaned GPU machines). Built as a CUDA
// injection library, loaded by the driver at cuInit:
//
//	sh bench/cupti/run.sh OUT.txt PROGRAM ARGS...
//
// Every kernel, copy and memset the program's context runs (graph nodes
// included) is summed by name; the table (calls, total and mean µs, by
// total) is rewritten to $CUPTI_OUT at each flush (forced every 100 ms, and at
// exit where the program's exit runs atexit: a Go program's does not).
// KREC, MREC and SREC name the newest kernel, memcpy and memset record
// structs of the CUPTI headers in use (run.sh finds them).
#include <cupti.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BUFSIZE (1 << 20)
#define MAXROWS 4096

typedef struct {
	char *name;
	unsigned long long calls, ns;
} row;

static row rows[MAXROWS];
static int nrows;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

static void add(const char *name, unsigned long long ns) {
	for (int i = 0; i < nrows; i++) {
		if (strcmp(rows[i].name, name) == 0) {
			rows[i].calls++;
			rows[i].ns += ns;
			return;
		}
	}
	if (nrows < MAXROWS) {
		rows[nrows].name = strdup(name);
		rows[nrows].calls = 1;
		rows[nrows].ns = ns;
		nrows++;
	}
}

static int bytotal(const void *a, const void *b) {
	const row *x = a, *y = b;
	return x->ns < y->ns ? 1 : x->ns > y->ns ? -1 : 0;
}

// dump rewrites the table (mu held).
static void dump(void) {
	const char *path = getenv("CUPTI_OUT");
	FILE *f = fopen(path ? path : "cupti-kernels.txt", "w");
	if (!f)
		return;
	qsort(rows, nrows, sizeof rows[0], bytotal);
	unsigned long long all = 0;
	for (int i = 0; i < nrows; i++)
		all += rows[i].ns;
	fprintf(f, "%10s %12s %10s %6s  %s\n", "calls", "total us", "mean us", "share", "name");
	for (int i = 0; i < nrows; i++)
		fprintf(f, "%10llu %12.1f %10.3f %5.1f%%  %s\n", rows[i].calls, rows[i].ns / 1e3,
			rows[i].ns / 1e3 / rows[i].calls, 100.0 * rows[i].ns / (all ? all : 1), rows[i].name);
	fclose(f);
}

static void CUPTIAPI request(uint8_t **buf, size_t *size, size_t *maxRecords) {
	*buf = aligned_alloc(8, BUFSIZE);
	*size = *buf ? BUFSIZE : 0;
	*maxRecords = 0;
}

static void CUPTIAPI complete(CUcontext ctx, uint32_t stream, uint8_t *buf, size_t size, size_t valid) {
	CUpti_Activity *rec = NULL;
	char name[64];
	pthread_mutex_lock(&mu);
	while (cuptiActivityGetNextRecord(buf, valid, &rec) == CUPTI_SUCCESS) {
		switch (rec->kind) {
		case CUPTI_ACTIVITY_KIND_KERNEL:
		case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
			KREC *k = (KREC *)rec;
			add(k->name ? k->name : "?", k->end - k->start);
			break;
		}
		case CUPTI_ACTIVITY_KIND_MEMCPY: {
			MREC *m = (MREC *)rec;
			snprintf(name, sizeof name, "[memcpy kind %u, %llu B]", (unsigned)m->copyKind, (unsigned long long)m->bytes);
			add(name, m->end - m->start);
			break;
		}
		case CUPTI_ACTIVITY_KIND_MEMSET: {
			SREC *s = (SREC *)rec;
			snprintf(name, sizeof name, "[memset %llu B]", (unsigned long long)s->bytes);
			add(name, s->end - s->start);
			break;
		}
		default:
			break;
		}
	}
	dump();
	pthread_mutex_unlock(&mu);
	free(buf);
}

static void *flusher(void *arg) {
	(void)arg;
	for (;;) {
		usleep(100000);
		cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
	}
	return NULL;
}

static void atend(void) { cuptiActivityFlushAll(1); }

int InitializeInjection(void) {
	if (cuptiActivityRegisterCallbacks(request, complete) != CUPTI_SUCCESS)
		return 0;
	cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
	cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY);
	cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMSET);
	pthread_t t;
	if (pthread_create(&t, NULL, flusher, NULL) == 0)
		pthread_detach(t);
	atexit(atend);
	return 1;
}
