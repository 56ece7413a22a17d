#include "CSDBus.h"

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

// Every handler forwards to splay_mpris_handlers: the vtables are data that only C's initializers can write, and
// the logic is Swift's.

static int on_get(sd_bus *bus, const char *path, const char *interface, const char *property, sd_bus_message *reply,
                  void *userdata, sd_bus_error *error) {
  (void)bus;
  (void)path;
  const splay_mpris_handlers *handlers = userdata;
  return handlers->get(handlers->context, interface, property, reply, error);
}

static int on_call(sd_bus_message *call, void *userdata, sd_bus_error *error) {
  const splay_mpris_handlers *handlers = userdata;
  return handlers->call(handlers->context, sd_bus_message_get_interface(call), sd_bus_message_get_member(call), call,
                        error);
}

// Never reached: the filter below takes every Set of these properties first. sd-bus wants a setter for a property
// that introspection calls writable.
static int on_set(sd_bus *bus, const char *path, const char *interface, const char *property, sd_bus_message *value,
                  void *userdata, sd_bus_error *error) {
  (void)bus;
  (void)path;
  (void)interface;
  (void)property;
  (void)value;
  (void)userdata;
  return sd_bus_error_set(error, SD_BUS_ERROR_FAILED, "not set through the filter");
}

static const sd_bus_vtable root_vtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_METHOD("Raise", "", "", on_call, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("Quit", "", "", on_call, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_PROPERTY("CanQuit", "b", on_get, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("CanRaise", "b", on_get, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("HasTrackList", "b", on_get, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("Identity", "s", on_get, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("SupportedUriSchemes", "as", on_get, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("SupportedMimeTypes", "as", on_get, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_VTABLE_END,
};

#define CHANGES SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE
static const sd_bus_vtable player_vtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_METHOD("Next", "", "", on_call, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("Previous", "", "", on_call, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("Pause", "", "", on_call, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("PlayPause", "", "", on_call, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("Stop", "", "", on_call, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("Play", "", "", on_call, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_ARGS("Seek", SD_BUS_ARGS("x", Offset), SD_BUS_NO_RESULT, on_call, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_ARGS("SetPosition", SD_BUS_ARGS("o", TrackId, "x", Position), SD_BUS_NO_RESULT, on_call,
                            SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_ARGS("OpenUri", SD_BUS_ARGS("s", Uri), SD_BUS_NO_RESULT, on_call, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_SIGNAL_WITH_ARGS("Seeked", SD_BUS_ARGS("x", Position), 0),
    SD_BUS_PROPERTY("PlaybackStatus", "s", on_get, 0, CHANGES),
    SD_BUS_WRITABLE_PROPERTY("LoopStatus", "s", on_get, on_set, 0, CHANGES | SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_WRITABLE_PROPERTY("Rate", "d", on_get, on_set, 0, CHANGES | SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_WRITABLE_PROPERTY("Shuffle", "b", on_get, on_set, 0, CHANGES | SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_PROPERTY("Metadata", "a{sv}", on_get, 0, CHANGES),
    SD_BUS_WRITABLE_PROPERTY("Volume", "d", on_get, on_set, 0, CHANGES | SD_BUS_VTABLE_UNPRIVILEGED),
    // The spec: Position changes continuously and is never announced; Seeked tells of jumps.
    SD_BUS_PROPERTY("Position", "x", on_get, 0, 0),
    SD_BUS_PROPERTY("MinimumRate", "d", on_get, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("MaximumRate", "d", on_get, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("CanGoNext", "b", on_get, 0, CHANGES),
    SD_BUS_PROPERTY("CanGoPrevious", "b", on_get, 0, CHANGES),
    SD_BUS_PROPERTY("CanPlay", "b", on_get, 0, CHANGES),
    SD_BUS_PROPERTY("CanPause", "b", on_get, 0, CHANGES),
    SD_BUS_PROPERTY("CanSeek", "b", on_get, 0, CHANGES),
    SD_BUS_PROPERTY("CanControl", "b", on_get, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_VTABLE_END,
};

static int is_writable(const char *property) {
  return strcmp(property, "LoopStatus") == 0 || strcmp(property, "Rate") == 0 || strcmp(property, "Shuffle") == 0 ||
         strcmp(property, "Volume") == 0;
}

// Runs before sd-bus dispatches a message to the object. Takes Properties.Set(PLAYER, writable property, value);
// leaves every other message, unread, to sd-bus (which answers a Set of anything else with its usual errors).
static int on_message(sd_bus_message *message, void *userdata, sd_bus_error *error) {
  const splay_mpris_handlers *handlers = userdata;
  if (sd_bus_message_is_method_call(message, "org.freedesktop.DBus.Properties", "Set") <= 0) return 0;
  const char *path = sd_bus_message_get_path(message);
  if (path == NULL || strcmp(path, SPLAY_MPRIS_PATH) != 0) return 0;
  const char *interface = NULL;
  const char *property = NULL;
  if (sd_bus_message_read_basic(message, 's', &interface) <= 0 ||
      sd_bus_message_read_basic(message, 's', &property) <= 0 || strcmp(interface, SPLAY_MPRIS_PLAYER) != 0 ||
      !is_writable(property)) {
    sd_bus_message_rewind(message, 1);
    return 0;
  }
  return handlers->set(handlers->context, property, message, error);
}

int splay_mpris_add(sd_bus *bus, const splay_mpris_handlers *handlers) {
  void *userdata = (void *)handlers;
  int r = sd_bus_add_filter(bus, NULL, on_message, userdata);
  if (r < 0) return r;
  r = sd_bus_add_object_vtable(bus, NULL, SPLAY_MPRIS_PATH, SPLAY_MPRIS_ROOT, root_vtable, userdata);
  if (r < 0) return r;
  return sd_bus_add_object_vtable(bus, NULL, SPLAY_MPRIS_PATH, SPLAY_MPRIS_PLAYER, player_vtable, userdata);
}

int splay_bus_wake_open(void) {
  int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  return fd < 0 ? -errno : fd;
}

void splay_bus_wake(int fd) {
  uint64_t one = 1;
  // Only fails when the counter is about to overflow, and then a wake-up is pending anyway.
  ssize_t written = write(fd, &one, sizeof one);
  (void)written;
}

int splay_bus_wait(sd_bus *bus, int wake_fd) {
  int fd = sd_bus_get_fd(bus);
  if (fd < 0) return fd;
  int events = sd_bus_get_events(bus);
  if (events < 0) return events;
  uint64_t until = UINT64_MAX;
  int r = sd_bus_get_timeout(bus, &until);
  if (r < 0) return r;
  int timeout = -1;
  if (until != UINT64_MAX) {
    // sd-bus gives an absolute CLOCK_MONOTONIC time in microseconds; poll takes milliseconds from now.
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t now = (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
    uint64_t milliseconds = until > now ? (until - now + 999) / 1000 : 0;
    timeout = milliseconds > INT32_MAX ? INT32_MAX : (int)milliseconds;
  }
  struct pollfd fds[2] = {
      {.fd = fd, .events = (short)events},
      {.fd = wake_fd, .events = POLLIN},
  };
  r = poll(fds, 2, timeout);
  if (r < 0) return errno == EINTR ? 0 : -errno;
  if (fds[1].revents & POLLIN) {
    uint64_t count;
    ssize_t got = read(wake_fd, &count, sizeof count);
    (void)got;
  }
  return r;
}
