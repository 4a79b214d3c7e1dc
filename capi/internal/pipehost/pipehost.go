// Package pipehost is a C host for benchmarks of a run's pipes: a thread
// Go does not schedule, as the Python event loop is, answering call items
// the way the Python bridge does.
package pipehost

/*
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

typedef struct {
	int rfd, wfd;
	long long work; // ns of busy work per call answered
	pthread_t th;
	long long answered, first, last, end, cpu;
	int completed;
	char err[256];
} sw_test_host;

static long long sw_test_now(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static long long sw_test_thread_cpu(void) {
	struct rusage ru;
	if (getrusage(RUSAGE_THREAD, &ru) != 0) return 0;
	return ((long long)ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000LL +
		((long long)ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000LL;
}

static int sw_test_wait(int fd, short events, sw_test_host *h) {
	for (;;) {
		struct pollfd p = {fd, events, 0};
		int n = poll(&p, 1, 10000);
		if (n > 0) return 0;
		if (n < 0 && errno == EINTR) continue;
		snprintf(h->err, sizeof h->err, "poll: n=%d errno=%d", n, errno);
		return -1;
	}
}

static int sw_test_write_all(sw_test_host *h, const char *b, size_t n) {
	while (n > 0) {
		ssize_t k = write(h->wfd, b, n);
		if (k > 0) { b += k; n -= (size_t)k; continue; }
		if (k < 0 && errno == EINTR) continue;
		if (k < 0 && errno == EAGAIN) { if (sw_test_wait(h->wfd, POLLOUT, h)) return -1; continue; }
		snprintf(h->err, sizeof h->err, "write: errno=%d", errno);
		return -1;
	}
	return 0;
}

// sw_test_serve answers every call item with a plain value, one write per
// read of the items pipe, until the done item.
static void *sw_test_serve(void *arg) {
	sw_test_host *h = arg;
	size_t cap = 1 << 17, len = 0, ocap = 1 << 16;
	char *in = malloc(cap), *out = malloc(ocap);
	long long cpu0 = sw_test_thread_cpu();
	for (;;) {
		if (sw_test_wait(h->rfd, POLLIN, h)) break;
		for (;;) {
			if (cap - len < (1 << 16)) { cap *= 2; in = realloc(in, cap); }
			ssize_t k = read(h->rfd, in + len, cap - len);
			if (k > 0) { len += (size_t)k; continue; }
			if (k < 0 && errno == EINTR) continue;
			if (k < 0 && errno == EAGAIN) break;
			snprintf(h->err, sizeof h->err, "read: k=%zd errno=%d", k, errno);
			goto out;
		}
		size_t olen = 0, start = 0;
		int done = 0;
		for (size_t i = 0; i < len; i++) {
			if (in[i] != '\n') continue;
			char *line = in + start;
			size_t n = i - start;
			start = i + 1;
			if (n > 1 && line[0] == '[' && isdigit((unsigned char)line[1])) {
				long long tok = 0;
				for (size_t j = 1; j < n && isdigit((unsigned char)line[j]); j++) tok = tok * 10 + (line[j] - '0');
				if (h->answered++ == 0) h->first = sw_test_now();
				if (h->work > 0) {
					long long until = sw_test_now() + h->work;
					while (sw_test_now() < until) {
					}
				}
				if (ocap - olen < 64) { ocap *= 2; out = realloc(out, ocap); }
				olen += (size_t)snprintf(out + olen, ocap - olen, "[%lld,{\"ok\":true,\"content\":1}]\n", tok);
			} else if (memmem(line, n, "\"kind\":\"done\"", 13)) {
				h->end = sw_test_now();
				h->completed = memmem(line, n, "\"status\":\"completed\"", 20) != NULL;
				if (!h->completed) snprintf(h->err, sizeof h->err, "done item: %.200s", line);
				done = 1;
			}
		}
		memmove(in, in + start, len - start);
		len -= start;
		if (olen > 0) {
			if (sw_test_write_all(h, out, olen)) break;
			h->last = sw_test_now();
		}
		if (done) break;
	}
out:
	h->cpu = sw_test_thread_cpu() - cpu0;
	free(in);
	free(out);
	return NULL;
}

static sw_test_host *sw_test_host_start(int rfd, int wfd, long long work) {
	sw_test_host *h = calloc(1, sizeof *h);
	h->rfd = rfd;
	h->wfd = wfd;
	h->work = work;
	if (pthread_create(&h->th, NULL, sw_test_serve, h) != 0) {
		free(h);
		return NULL;
	}
	return h;
}

static void sw_test_host_join(sw_test_host *h) { pthread_join(h->th, NULL); }
*/
import "C"

import (
	"errors"
	"time"
	"unsafe"
)

// Host is a host on a thread of its own that Go does not schedule, as the
// Python event loop is: it answers every call item of a run with a plain
// value, one write of completions per read of the items pipe (as the
// bridge flushes its completions once per loop iteration), until the done
// item. Before it answers a call it may work (spin) for a while, as the
// event loop spends time on each call.
type Host struct{ h *C.sw_test_host }

// HostReport is what a Host saw of its run. The times are on the clock
// Now reads.
type HostReport struct {
	Answered int
	// First is when the first call item was read, Last when the last
	// completions were written, Done when the done item was read.
	First, Last, Done time.Duration
	// CPU is the CPU time of the host's thread.
	CPU time.Duration
}

// StartHost starts a host reading items from rfd and writing completions
// to wfd, working for work on each call.
func StartHost(rfd, wfd int, work time.Duration) (*Host, error) {
	h := C.sw_test_host_start(C.int(rfd), C.int(wfd), C.longlong(work))
	if h == nil {
		return nil, errors.New("capitest: cannot start the host thread")
	}
	return &Host{h: h}, nil
}

// Wait waits for the host to read the done item (or fail) and reports
// what it saw; the error is set unless the done item reported a
// completed run.
func (h *Host) Wait() (HostReport, error) {
	C.sw_test_host_join(h.h)
	defer C.free(unsafe.Pointer(h.h))
	r := HostReport{Answered: int(h.h.answered), First: time.Duration(h.h.first), Last: time.Duration(h.h.last),
		Done: time.Duration(h.h.end), CPU: time.Duration(h.h.cpu)}
	if h.h.completed == 0 {
		return r, errors.New("capitest: host: " + C.GoString(&h.h.err[0]))
	}
	return r, nil
}

// Now reads the clock of HostReport's times.
func Now() time.Duration { return time.Duration(C.sw_test_now()) }
