// A D-Bus client that times MPRIS calls on one open connection, for Benchmarks/bench_mpris.py: the playerctl-free
// client of issue 21's bench row. sd-bus (libsystemd), nothing else around the call, so that a figure is the
// method call's round trip (client → bus daemon → player → bus daemon → client) and no process start-up.
//
//   MPRISProbe
//
// Connects to the session bus (DBUS_SESSION_BUS_ADDRESS: the bench's private bus), then reads one request per
// line on stdin and answers each with one line on stdout, so that the driver can interleave these calls with
// its own socket requests:
//
//   call DEST MEMBER   org.mpris.MediaPlayer2.Player.MEMBER() on DEST's /org/mpris/MediaPlayer2, e.g. PlayPause
//   ping DEST          org.freedesktop.DBus.Peer.Ping() on DEST (answered by the player's D-Bus library alone)
//   status DEST        Properties.Get of the player interface's PlaybackStatus
//
//   → ok NANOSECONDS [VALUE]      or      error NAME MESSAGE
//
// The message is built before the clock is read; a figure runs from just before sd_bus_call sends it to the
// moment sd_bus_call has read and parsed the reply. Every call has a 5 s deadline and no auto-start. Ends at
// end of input; exits with 69 when the bus cannot be reached, 64 on bad usage.
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <systemd/sd-bus.h>
#include <time.h>

static const char *const object_path = "/org/mpris/MediaPlayer2";
static const char *const player_interface = "org.mpris.MediaPlayer2.Player";
static const uint64_t deadline_usec = 5000000;

static uint64_t now_ns(void) {
  struct timespec spec;
  clock_gettime(CLOCK_MONOTONIC, &spec);
  return (uint64_t)spec.tv_sec * 1000000000u + (uint64_t)spec.tv_nsec;
}

// Prints the reply line for a failed call.
static void print_error(const sd_bus_error *error, int result) {
  if (sd_bus_error_is_set(error)) {
    printf("error %s %s\n", error->name, error->message ? error->message : "");
  } else {
    printf("error errno %s\n", strerror(-result));
  }
}

// Times one call of `member` on `interface` at `destination`; for PlaybackStatus (`property` not NULL) the
// arguments are the interface and the property's name, and the value is printed after the time.
static void timed_call(sd_bus *bus, const char *destination, const char *interface, const char *member,
                       const char *property) {
  sd_bus_message *message = NULL, *reply = NULL;
  sd_bus_error error = SD_BUS_ERROR_NULL;
  int result = sd_bus_message_new_method_call(bus, &message, destination, object_path, interface, member);
  if (result >= 0) result = sd_bus_message_set_auto_start(message, 0);
  if (result >= 0 && property != NULL) result = sd_bus_message_append(message, "ss", player_interface, property);
  if (result < 0) {
    print_error(&error, result);
    sd_bus_message_unref(message);
    return;
  }
  uint64_t started = now_ns();
  result = sd_bus_call(bus, message, deadline_usec, &error, &reply);
  uint64_t elapsed = now_ns() - started;
  if (result < 0) {
    print_error(&error, result);
  } else if (property != NULL) {
    const char *value = NULL;
    result = sd_bus_message_read(reply, "v", "s", &value);
    if (result < 0) {
      print_error(&error, result);
    } else {
      printf("ok %" PRIu64 " %s\n", elapsed, value);
    }
  } else {
    printf("ok %" PRIu64 "\n", elapsed);
  }
  sd_bus_error_free(&error);
  sd_bus_message_unref(reply);
  sd_bus_message_unref(message);
}

int main(int argc, char **argv) {
  (void)argv;
  if (argc != 1) {
    fprintf(stderr, "usage: MPRISProbe  (requests on stdin, one a line; see its source)\n");
    return 64;
  }
  sd_bus *bus = NULL;
  int result = sd_bus_open_user(&bus);
  if (result < 0) {
    fprintf(stderr, "MPRISProbe: cannot connect to the session bus: %s\n", strerror(-result));
    return 69;
  }
  setvbuf(stdout, NULL, _IOLBF, 0);
  char line[512];
  while (fgets(line, sizeof line, stdin) != NULL) {
    char verb[16], destination[256], member[64];
    int fields = sscanf(line, "%15s %255s %63s", verb, destination, member);
    if (fields == 3 && strcmp(verb, "call") == 0) {
      timed_call(bus, destination, player_interface, member, NULL);
    } else if (fields == 2 && strcmp(verb, "ping") == 0) {
      timed_call(bus, destination, "org.freedesktop.DBus.Peer", "Ping", NULL);
    } else if (fields == 2 && strcmp(verb, "status") == 0) {
      timed_call(bus, destination, "org.freedesktop.DBus.Properties", "Get", "PlaybackStatus");
    } else {
      printf("error usage unknown request\n");
    }
  }
  sd_bus_flush_close_unref(bus);
  return 0;
}
