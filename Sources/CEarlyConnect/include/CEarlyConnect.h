#ifndef SPLAY_CEARLYCONNECT_H
#define SPLAY_CEARLYCONNECT_H

/// What `splay` starts before its arguments are parsed, decided once from the raw arguments.
enum {
  /// Nothing: not `play`, no operand, or an option that names an output or asks for help.
  SPLAY_EARLY_NOTHING = 0,
  /// Connect only: ReplayGain is on, so the first file plays through a gain its prepared stream would lack.
  SPLAY_EARLY_CONNECT = 1,
  /// Connect, and prepare the first file's stream corked: the parsed command decides whether it plays.
  SPLAY_EARLY_PREPARE = 2,
  /// Connect, prepare, and start playing once the first audio is in: `play` with file operands and no option
  /// but `--json` and `--loop`.
  SPLAY_EARLY_PLAY = 3,
};

/// The mode the arguments asked for (one of the values above); the same all through the process's life.
int splay_early_start_mode(void);

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
