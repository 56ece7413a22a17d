// See CThreadStart.h. The new thread is created with an affinity that leaves out the caller's CPU, so the
// kernel places it elsewhere from the start; its first act is to widen its affinity back to the caller's.
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>

#include "CThreadStart.h"

struct start {
  void (*body)(void *);
  void *context;
  cpu_set_t allowed;
  int restore;
};

static void *trampoline(void *raw) {
  struct start start = *(struct start *)raw;
  free(raw);
  if (start.restore) {
    (void)pthread_setaffinity_np(pthread_self(), sizeof start.allowed, &start.allowed);
  }
  start.body(start.context);
  return NULL;
}

int splay_thread_start_elsewhere(void (*body)(void *), void *context) {
  struct start *start = malloc(sizeof *start);
  if (start == NULL) return ENOMEM;
  start->body = body;
  start->context = context;
  start->restore = 0;

  pthread_attr_t attributes;
  int error = pthread_attr_init(&attributes);
  if (error != 0) {
    free(start);
    return error;
  }
  int here = sched_getcpu();
  if (here >= 0 && sched_getaffinity(0, sizeof start->allowed, &start->allowed) == 0) {
    cpu_set_t elsewhere = start->allowed;
    CPU_CLR(here, &elsewhere);
    if (CPU_COUNT(&elsewhere) > 0 && pthread_attr_setaffinity_np(&attributes, sizeof elsewhere, &elsewhere) == 0) {
      start->restore = 1;
    }
  }
  (void)pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
  pthread_t thread;
  error = pthread_create(&thread, &attributes, trampoline, start);
  pthread_attr_destroy(&attributes);
  if (error != 0) free(start);
  return error;
}
