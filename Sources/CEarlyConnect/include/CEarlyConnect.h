#ifndef SPLAY_CEARLYCONNECT_H
#define SPLAY_CEARLYCONNECT_H

/// Whether this process began connecting to the sound server before `main` (see early_connect.c): it does for
/// `splay play` with arguments that name no output and ask for no help, and only then.
int splay_early_connection_began(void);

/// Waits until the connection begun before `main` is under way, then hands it over: a started
/// `pa_threaded_mainloop` and a `pa_context` on it that `pa_context_connect` was called for, with no callback
/// set. Returns 1 and fills both, which the caller owns from then on; returns 0 when nothing was begun, it
/// failed before connecting, or it was already handed over or discarded.
int splay_early_connection_take(void **mainloop, void **context);

/// Disconnects and frees the connection begun before `main`, unless it was handed over: for a command that
/// turned out not to want it.
void splay_early_connection_discard(void);

#endif
