#ifndef SPLAY_CSDBUS_H
#define SPLAY_CSDBUS_H

// sd-bus (libsystemd) for splay's MPRIS service, and what Swift cannot write itself: the object's vtables, which
// sd-bus declares with initializer macros, and the handlers they point to, which forward to Swift.
//
// libsystemd is linked rather than loaded with dlopen: libpulse (libpulsecommon) already links it on Debian, so
// every splay process has it mapped before `main`, and naming it once more costs nothing measurable (see
// Package.swift for the figures).

#include <stdint.h>
#include <systemd/sd-bus.h>

/// The MPRIS object path.
#define SPLAY_MPRIS_PATH "/org/mpris/MediaPlayer2"
/// The root interface.
#define SPLAY_MPRIS_ROOT "org.mpris.MediaPlayer2"
/// The player interface.
#define SPLAY_MPRIS_PLAYER "org.mpris.MediaPlayer2.Player"

/// What the MPRIS object asks of its owner. Every call comes on the thread that runs sd_bus_process, from inside
/// it; `context` is passed back as given.
typedef struct splay_mpris_handlers {
  void *context;
  /// Appends the value of `property` of `interface` to `reply`, which is positioned inside the property's
  /// variant. Returns 0 or more on success, or a negative errno (after setting `error`, for a named error).
  int (*get)(void *context, const char *interface, const char *property, sd_bus_message *reply, sd_bus_error *error);
  /// A call of `member` on `interface` (one of the methods the vtables declare), its arguments unread. Returns 1
  /// once it replied or took a reference to `call` to reply later, or a negative errno with `error` set.
  int (*call)(void *context, const char *interface, const char *member, sd_bus_message *call, sd_bus_error *error);
  /// org.freedesktop.DBus.Properties.Set of a writable property of the player interface. `call` is positioned at
  /// the variant that holds the new value. Returns as `call` does.
  int (*set)(void *context, const char *property, sd_bus_message *call, sd_bus_error *error);
} splay_mpris_handlers;

/// Adds both MPRIS interfaces at SPLAY_MPRIS_PATH, and a filter that takes the Set calls of the player's
/// writable properties before sd-bus does: sd-bus replies to a Set as soon as a property's setter returns, and
/// splay replies only once the server confirmed the change. `handlers` must stay valid while the bus is open.
/// Returns 0 or a negative errno.
int splay_mpris_add(sd_bus *bus, const splay_mpris_handlers *handlers);

/// A non-blocking eventfd that wakes splay_bus_wait, or a negative errno.
int splay_bus_wake_open(void);
/// Wakes the thread waiting in splay_bus_wait on `fd`.
void splay_bus_wake(int fd);

/// Waits until the bus has something to process (a message to read or write, a timeout of a pending call) or
/// `wake_fd` was woken, whichever comes first, and consumes the wake-up. Returns 0 or more, or a negative errno
/// when the connection is gone. Never spins: with nothing to do, it sleeps in poll(2).
int splay_bus_wait(sd_bus *bus, int wake_fd);

#endif
