#ifndef SPLAY_CTHREADSTART_H
#define SPLAY_CTHREADSTART_H

/// Creates a detached thread that runs `body(context)`, starting on another CPU than the caller's when the
/// caller may use more than one; once it runs, it (and the threads it makes) may use every CPU the caller
/// may. Returns 0, or an error number (then `body` does not run).
///
/// Linux tends to queue a new thread on its parent's CPU, where a parent that goes on computing holds it off
/// for milliseconds while another CPU idles. The affinity calls this needs are GNU extensions that Swift's
/// Glibc module does not declare, hence this C target.
int splay_thread_start_elsewhere(void (*body)(void *), void *context);

#endif
