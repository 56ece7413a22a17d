// `splay play` is judged by how soon its first sound reaches the speakers. Before `main` runs, the Swift
// runtime and Foundation initialize (a few milliseconds for a statically linked Swift executable; a C player
// is in its `main` by then), and ArgumentParser then parses for about 2 ms. Connecting to the sound server
// (a socket, the cookie, two round trips of the handshake) does not depend on any of that, so a constructor
// that runs before the Swift runtime's own starts it on a thread of its own, on the other CPU, and the Swift
// side (EarlyStart, PulseOutput's adopting initializer) takes the connection over once it has parsed enough
// to want it. Only the handshake is done here: which file, stream and options are used is decided in Swift.
#include <pthread.h>
#include <pulse/pulseaudio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "CEarlyConnect.h"
#include "CThreadStart.h"

enum phase { idle, connecting, connected, handed_over };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t phase_changed = PTHREAD_COND_INITIALIZER;
static enum phase phase = idle;
static int began = 0;
static int mode = SPLAY_EARLY_NOTHING;
static pa_threaded_mainloop *early_mainloop = NULL;
static pa_context *early_context = NULL;
// `--replaygain` on the command line: it wins over the config's key.
static enum { gain_unset, gain_off, gain_on } gain_option = gain_unset;

// The one rule for what starts before the parse (EarlyStart reads it through splay_early_start_mode).
// Nothing: not `play`, no operand, or an option that names an output (`--output`, `--server`, `--sink`: they
// make their own, and a script asking for the simulated output must not start or touch a socket-activated
// sound server) or asks for help. Playing at once: every argument after `play` is a file operand, `--json` or
// `--loop`, and there is an operand. Anything else connects and prepares, and waits for the parse to play
// (or only connects, when ReplayGain is on: see begin_early_connection).
static int mode_of(int argc, char **argv) {
  static const char *const refused[] = {"--output", "--server", "--sink", "--help", "-h"};
  if (argc <= 2 || argv == NULL || argv[1] == NULL || strcmp(argv[1], "play") != 0) return SPLAY_EARLY_NOTHING;
  int only_playing_options = 1;
  int operands = 0;
  for (int index = 2; index < argc && argv[index] != NULL; index++) {
    const char *argument = argv[index];
    for (size_t option = 0; option < sizeof refused / sizeof refused[0]; option++) {
      size_t length = strlen(refused[option]);
      if (strncmp(argument, refused[option], length) == 0 && (argument[length] == '\0' || argument[length] == '=')) {
        return SPLAY_EARLY_NOTHING;
      }
    }
    if (strcmp(argument, "--replaygain") == 0 || strncmp(argument, "--replaygain=", 13) == 0) {
      const char *value = argument[12] == '=' ? argument + 13 : (index + 1 < argc ? argv[++index] : NULL);
      gain_option = value == NULL || strcmp(value, "off") != 0 ? gain_on : gain_off;
      only_playing_options = 0;
    } else if (argument[0] != '-') {
      operands++;
    } else if (strcmp(argument, "--json") != 0 && strcmp(argument, "--loop") != 0) {
      only_playing_options = 0;
    }
  }
  return only_playing_options && operands > 0 ? SPLAY_EARLY_PLAY : SPLAY_EARLY_PREPARE;
}

enum { config_silent = 0, config_names_volume = 1, config_names_output = 2, config_names_gain = 4 };

// Whether the user's config.toml sets the output, server or sink (then the parse decides where to connect, as
// with `--output`), the start volume (then nothing plays before the parse, as with `--volume`: the first
// file's stream would start at the server's volume), or a ReplayGain mode other than "off" (then no stream is
// prepared either: the first file plays through a gain that stream would lack). A line scan of the top-level
// keys, where these live; the Swift side parses the file and reports its mistakes.
static int config_decides(void) {
  char path[4096];
  const char *base = getenv("XDG_CONFIG_HOME");
  const char *home = getenv("HOME");
  int length;
  if (base != NULL && base[0] == '/') {
    length = snprintf(path, sizeof path, "%s/splay/config.toml", base);
  } else if (home != NULL && home[0] == '/') {
    length = snprintf(path, sizeof path, "%s/.config/splay/config.toml", home);
  } else {
    return config_silent;
  }
  if (length < 0 || (size_t)length >= sizeof path) return config_names_output;
  FILE *file = fopen(path, "re");
  if (file == NULL) return config_silent;
  int found = config_silent;
  char line[1024];
  // Inside a multi-line string ("""...""" or '''...'''), lines are its text, not keys or tables.
  const char *open_string = NULL;
  while (fgets(line, sizeof line, file) != NULL) {
    if (open_string != NULL) {
      if (strstr(line, open_string) != NULL) open_string = NULL;
      continue;
    }
    static const char *const delimiters[] = {"\"\"\"", "'''"};
    for (size_t which = 0; which < 2; which++) {
      int count = 0;
      for (const char *at = strstr(line, delimiters[which]); at != NULL; at = strstr(at + 3, delimiters[which])) count++;
      if (count % 2 == 1) open_string = delimiters[which];
    }
    const char *key = line + strspn(line, " \t\"'");
    if (key[0] == '[') break;
    size_t name = strcspn(key, " \t=\"'");
    const char *rest = key + name;
    rest += strspn(rest, " \t\"'");
    if (rest[0] != '=') continue;
    if ((name == 6 && strncmp(key, "output", 6) == 0) || (name == 6 && strncmp(key, "server", 6) == 0) ||
        (name == 4 && strncmp(key, "sink", 4) == 0)) {
      found |= config_names_output;
    } else if (name == 6 && strncmp(key, "volume", 6) == 0) {
      found |= config_names_volume;
    } else if (name == 10 && strncmp(key, "replaygain", 10) == 0) {
      const char *value = rest + 1 + strspn(rest + 1, " \t\"'");
      // strchr finds the terminator too: "off" at the end of the file is off.
      int off = strncmp(value, "off", 3) == 0 && strchr("\"' \t#\r\n", value[3]) != NULL;
      if (!off) found |= config_names_gain;
    }
  }
  fclose(file);
  return found;
}

static void publish(pa_threaded_mainloop *mainloop, pa_context *context) {
  pthread_mutex_lock(&lock);
  early_mainloop = mainloop;
  early_context = context;
  phase = connected;
  pthread_cond_broadcast(&phase_changed);
  pthread_mutex_unlock(&lock);
}

// The same identity PulseOutput gives the contexts it makes itself.
static void connect_now(void *unused) {
  (void)unused;
  pa_threaded_mainloop *mainloop = pa_threaded_mainloop_new();
  if (mainloop != NULL && pa_threaded_mainloop_start(mainloop) < 0) {
    pa_threaded_mainloop_free(mainloop);
    mainloop = NULL;
  }
  if (mainloop == NULL) {
    publish(NULL, NULL);
    return;
  }
  pa_threaded_mainloop_lock(mainloop);
  pa_proplist *properties = pa_proplist_new();
  pa_proplist_sets(properties, PA_PROP_APPLICATION_NAME, "splay");
  pa_proplist_sets(properties, PA_PROP_APPLICATION_ID, "org.splay.player");
  pa_proplist_sets(properties, PA_PROP_MEDIA_ROLE, "music");
  pa_context *context = pa_context_new_with_proplist(pa_threaded_mainloop_get_api(mainloop), "splay", properties);
  pa_proplist_free(properties);
  // A connect that fails at once leaves the context failed; the adopting output reports that as it reports
  // any failed connection, and tries again on its next `open`.
  if (context != NULL) (void)pa_context_connect(context, NULL, PA_CONTEXT_NOAUTOSPAWN, NULL);
  pa_threaded_mainloop_unlock(mainloop);
  if (context == NULL) {
    pa_threaded_mainloop_stop(mainloop);
    pa_threaded_mainloop_free(mainloop);
    mainloop = NULL;
  }
  publish(mainloop, context);
}

// Priority 101: before the constructors without a priority, the Swift runtime's among them. glibc passes
// init-array functions the program's arguments.
__attribute__((constructor(101))) static void begin_early_connection(int argc, char **argv, char **environment) {
  (void)environment;
  mode = mode_of(argc, argv);
  if (mode == SPLAY_EARLY_NOTHING) return;
  int config = config_decides();
  if (config & config_names_output) {
    mode = SPLAY_EARLY_NOTHING;
    return;
  }
  if (gain_option == gain_on || (gain_option == gain_unset && (config & config_names_gain))) {
    mode = SPLAY_EARLY_CONNECT;
  } else if ((config & config_names_volume) && mode == SPLAY_EARLY_PLAY) {
    mode = SPLAY_EARLY_PREPARE;
  }
  phase = connecting;
  began = 1;
  if (splay_thread_start_elsewhere(connect_now, NULL) != 0) phase = idle;
}

int splay_early_start_mode(void) { return mode; }

int splay_early_connection_began(void) {
  pthread_mutex_lock(&lock);
  int result = began;
  pthread_mutex_unlock(&lock);
  return result;
}

int splay_early_connection_take(void **mainloop, void **context) {
  pthread_mutex_lock(&lock);
  while (phase == connecting) pthread_cond_wait(&phase_changed, &lock);
  int taken = phase == connected && early_mainloop != NULL;
  if (taken) {
    *mainloop = early_mainloop;
    *context = early_context;
  }
  early_mainloop = NULL;
  early_context = NULL;
  phase = handed_over;
  pthread_mutex_unlock(&lock);
  return taken;
}

void splay_early_connection_discard(void) {
  void *mainloop = NULL;
  void *context = NULL;
  if (!splay_early_connection_take(&mainloop, &context)) return;
  pa_threaded_mainloop_lock(mainloop);
  pa_context_disconnect(context);
  pa_context_unref(context);
  pa_threaded_mainloop_unlock(mainloop);
  pa_threaded_mainloop_stop(mainloop);
  pa_threaded_mainloop_free(mainloop);
}
