// The server's share of each acknowledgement: a bare libpulse client, with no player around it, timing the
// operations splay confirms its commands with. Benchmarks/run-audio.py prints these beside splay's and mpv's
// figures, so the table says how much of a reply is the server's round trip itself and how much is the player.
//
//   PulseFloorProbe <rounds> <gap-ms>
//
// Connects to the default server (PULSE_SERVER), opens a playback stream the way PulseOutput does (float
// stereo at 44.1 kHz, created corked, adjust-latency with automatic and interpolated timing, 200 ms target),
// keeps it fed with silence, uncorks it, and then runs <rounds> rounds of: cork, uncork, sink-input volume (40
// and 60 % alternately), waiting <gap-ms> milliseconds after each. A figure is the time from the call, made on
// this thread under the mainloop lock as PulseOutput's callers make theirs, to the moment the callback on the
// mainloop thread saw the server's answer. For the cork it also records the first timing update after the
// cork's acknowledgement, which is what splay's pause waits for (the position where the audio stopped).
// Prints one JSON object: {"pause": [ns...], "pause_timing": [...], "play": [...], "volume": [...],
// "failures": n}. Exits with 69 when the server cannot be reached or the stream not made, 64 on bad usage.
#include <pulse/pulseaudio.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { rate = 44100, channels = 2 };

// Written on the mainloop thread in callbacks, read by the main thread under the mainloop lock.
struct probe {
  pa_threaded_mainloop *mainloop;
  pa_context *context;
  pa_stream *stream;
  int answered;  // the operation in flight was answered
  int succeeded;
  uint64_t answered_at;
  int awaiting_timing;  // set once a cork was acknowledged: the next timing update is timed
  int timing_arrived;
  uint64_t timing_at;
};

static uint64_t now_ns(void) {
  struct timespec spec;
  clock_gettime(CLOCK_MONOTONIC, &spec);
  return (uint64_t)spec.tv_sec * 1000000000u + (uint64_t)spec.tv_nsec;
}

static void context_state_changed(pa_context *context, void *userdata) {
  (void)context;
  pa_threaded_mainloop_signal(((struct probe *)userdata)->mainloop, 0);
}

static void stream_state_changed(pa_stream *stream, void *userdata) {
  (void)stream;
  pa_threaded_mainloop_signal(((struct probe *)userdata)->mainloop, 0);
}

// Silence is mixed like any other audio: what is timed here is the server's handling of the commands.
static void write_requested(pa_stream *stream, size_t length, void *userdata) {
  (void)userdata;
  while (length > 0) {
    void *data = NULL;
    size_t chunk = length;
    if (pa_stream_begin_write(stream, &data, &chunk) < 0 || data == NULL || chunk == 0) return;
    memset(data, 0, chunk);
    if (pa_stream_write(stream, data, chunk, NULL, 0, PA_SEEK_RELATIVE) < 0) return;
    length -= chunk < length ? chunk : length;
  }
}

static void timing_updated(pa_stream *stream, void *userdata) {
  (void)stream;
  struct probe *probe = userdata;
  if (!probe->awaiting_timing) return;
  probe->awaiting_timing = 0;
  probe->timing_at = now_ns();
  probe->timing_arrived = 1;
  pa_threaded_mainloop_signal(probe->mainloop, 0);
}

static void answered(struct probe *probe, int success) {
  probe->answered_at = now_ns();
  probe->answered = 1;
  probe->succeeded = success;
  pa_threaded_mainloop_signal(probe->mainloop, 0);
}

static void stream_answered(pa_stream *stream, int success, void *userdata) {
  (void)stream;
  answered(userdata, success);
}

static void context_answered(pa_context *context, int success, void *userdata) {
  (void)context;
  answered(userdata, success);
}

// A pause's acknowledgement: the timing update libpulse requests right behind every cork is answered next.
static void cork_answered(pa_stream *stream, int success, void *userdata) {
  (void)stream;
  struct probe *probe = userdata;
  probe->awaiting_timing = success;
  answered(probe, success);
}

// Waits (mainloop lock held) until `done` holds or the stream or context failed; returns whether `done`.
static int wait_until(struct probe *probe, const int *done) {
  while (!*done) {
    if (pa_context_get_state(probe->context) != PA_CONTEXT_READY) return 0;
    if (probe->stream != NULL && pa_stream_get_state(probe->stream) != PA_STREAM_READY) return 0;
    pa_threaded_mainloop_wait(probe->mainloop);
  }
  return 1;
}

enum command { pause_command, play_command, volume_command };

// Issues one command and returns the nanoseconds to its acknowledgement (0 when it failed); for a pause,
// `timing` receives the nanoseconds to the first timing update after the acknowledgement.
static uint64_t timed(struct probe *probe, enum command command, int percent, uint64_t *timing) {
  pa_threaded_mainloop_lock(probe->mainloop);
  probe->answered = 0;
  probe->awaiting_timing = 0;
  probe->timing_arrived = 0;
  uint64_t started = now_ns();
  pa_operation *operation = NULL;
  if (command == volume_command) {
    pa_cvolume volume;
    pa_cvolume_set(&volume, channels, (pa_volume_t)((uint64_t)PA_VOLUME_NORM * (uint64_t)percent / 100u));
    operation = pa_context_set_sink_input_volume(probe->context, pa_stream_get_index(probe->stream), &volume,
                                                 context_answered, probe);
  } else if (command == pause_command) {
    operation = pa_stream_cork(probe->stream, 1, cork_answered, probe);
  } else {
    operation = pa_stream_cork(probe->stream, 0, stream_answered, probe);
  }
  uint64_t result = 0;
  if (operation != NULL && wait_until(probe, &probe->answered) && probe->succeeded) {
    result = probe->answered_at - started;
    if (command == pause_command) {
      *timing = wait_until(probe, &probe->timing_arrived) ? probe->timing_at - started : 0;
    }
  }
  if (operation != NULL) pa_operation_unref(operation);
  pa_threaded_mainloop_unlock(probe->mainloop);
  return result;
}

static void sleep_ms(unsigned milliseconds) {
  struct timespec pause = {.tv_sec = milliseconds / 1000, .tv_nsec = (long)(milliseconds % 1000) * 1000000L};
  nanosleep(&pause, NULL);
}

static void print_list(const char *name, const uint64_t *values, int count, int last) {
  printf("\"%s\": [", name);
  for (int index = 0; index < count; index++) printf(index ? ", %llu" : "%llu", (unsigned long long)values[index]);
  printf(last ? "]" : "], ");
}

// Connects and opens the stream, corked, then uncorks it; returns 0 on success, with the lock released.
static int open_stream(struct probe *probe) {
  pa_threaded_mainloop_lock(probe->mainloop);
  pa_context_set_state_callback(probe->context, context_state_changed, probe);
  if (pa_context_connect(probe->context, NULL, PA_CONTEXT_NOAUTOSPAWN, NULL) < 0) goto failed;
  while (pa_context_get_state(probe->context) != PA_CONTEXT_READY) {
    if (!PA_CONTEXT_IS_GOOD(pa_context_get_state(probe->context))) goto failed;
    pa_threaded_mainloop_wait(probe->mainloop);
  }
  pa_sample_spec spec = {.format = PA_SAMPLE_FLOAT32LE, .rate = rate, .channels = channels};
  probe->stream = pa_stream_new(probe->context, "PulseFloorProbe", &spec, NULL);
  if (probe->stream == NULL) goto failed;
  pa_stream_set_state_callback(probe->stream, stream_state_changed, probe);
  pa_stream_set_write_callback(probe->stream, write_requested, probe);
  pa_stream_set_latency_update_callback(probe->stream, timing_updated, probe);
  pa_buffer_attr attributes = {.maxlength = (uint32_t)-1, .tlength = (uint32_t)pa_usec_to_bytes(200000, &spec),
                               .prebuf = (uint32_t)-1, .minreq = (uint32_t)-1, .fragsize = (uint32_t)-1};
  pa_stream_flags_t flags = PA_STREAM_START_CORKED | PA_STREAM_ADJUST_LATENCY | PA_STREAM_AUTO_TIMING_UPDATE |
                            PA_STREAM_INTERPOLATE_TIMING;
  if (pa_stream_connect_playback(probe->stream, NULL, &attributes, flags, NULL, NULL) < 0) goto failed;
  while (pa_stream_get_state(probe->stream) != PA_STREAM_READY) {
    if (!PA_STREAM_IS_GOOD(pa_stream_get_state(probe->stream))) goto failed;
    pa_threaded_mainloop_wait(probe->mainloop);
  }
  pa_threaded_mainloop_unlock(probe->mainloop);
  uint64_t unused = 0;
  return timed(probe, play_command, 0, &unused) == 0 ? -1 : 0;
failed:
  fprintf(stderr, "PulseFloorProbe: %s\n", pa_strerror(pa_context_errno(probe->context)));
  pa_threaded_mainloop_unlock(probe->mainloop);
  return -1;
}

int main(int argc, char **argv) {
  int rounds = argc == 3 ? atoi(argv[1]) : 0;
  int gap = argc == 3 ? atoi(argv[2]) : -1;
  if (rounds <= 0 || gap < 0) {
    fprintf(stderr, "usage: PulseFloorProbe <rounds> <gap-ms>\n");
    return 64;
  }
  struct probe probe = {0};
  probe.mainloop = pa_threaded_mainloop_new();
  if (probe.mainloop == NULL || pa_threaded_mainloop_start(probe.mainloop) < 0) return 69;
  probe.context = pa_context_new(pa_threaded_mainloop_get_api(probe.mainloop), "PulseFloorProbe");
  if (probe.context == NULL || open_stream(&probe) != 0) return 69;
  sleep_ms(300);  // playing, as the players are when their figures are taken

  uint64_t *figures = calloc((size_t)rounds * 4, sizeof *figures);
  if (figures == NULL) return 69;
  uint64_t *pause = figures, *pause_timing = figures + rounds, *play = figures + 2 * rounds,
           *volume = figures + 3 * rounds;
  int counts[4] = {0}, failures = 0;
  for (int round = 0; round < rounds; round++) {
    uint64_t timing = 0, value;
    if ((value = timed(&probe, pause_command, 0, &timing)) != 0 && timing != 0) {
      pause[counts[0]++] = value;
      pause_timing[counts[1]++] = timing;
    } else {
      failures++;
    }
    sleep_ms((unsigned)gap);
    if ((value = timed(&probe, play_command, 0, &timing)) != 0) play[counts[2]++] = value; else failures++;
    sleep_ms((unsigned)gap);
    if ((value = timed(&probe, volume_command, round % 2 ? 60 : 40, &timing)) != 0) {
      volume[counts[3]++] = value;
    } else {
      failures++;
    }
    sleep_ms((unsigned)gap);
  }

  printf("{");
  print_list("pause", pause, counts[0], 0);
  print_list("pause_timing", pause_timing, counts[1], 0);
  print_list("play", play, counts[2], 0);
  print_list("volume", volume, counts[3], 0);
  printf("\"failures\": %d}\n", failures);
  free(figures);

  pa_threaded_mainloop_lock(probe.mainloop);
  pa_stream_disconnect(probe.stream);
  pa_stream_unref(probe.stream);
  pa_context_disconnect(probe.context);
  pa_context_unref(probe.context);
  pa_threaded_mainloop_unlock(probe.mainloop);
  pa_threaded_mainloop_stop(probe.mainloop);
  pa_threaded_mainloop_free(probe.mainloop);
  return failures == 0 ? 0 : 1;
}
