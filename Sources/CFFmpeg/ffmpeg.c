#include "CFFmpeg.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define STRINGIFY(x) #x
#define SONAME(name, major) "lib" name ".so." STRINGIFY(major)

// The libraries, by the major version of the headers splay was built with (their ABI).
enum { AVUTIL, SWRESAMPLE, AVCODEC, AVFORMAT, LIBRARIES };
static const char *const sonames[LIBRARIES] = {
    SONAME("avutil", LIBAVUTIL_VERSION_MAJOR),
    SONAME("swresample", LIBSWRESAMPLE_VERSION_MAJOR),
    SONAME("avcodec", LIBAVCODEC_VERSION_MAJOR),
    SONAME("avformat", LIBAVFORMAT_VERSION_MAJOR),
};

// Every function splay calls: FUNCTION(library, return type, name, parameters, arguments), or VOID(...) for one that
// returns nothing. Each gets a pointer in `table` and a splay_-prefixed wrapper declared in CFFmpeg.h.
#define FUNCTIONS(FUNCTION, VOID)                                                                                     \
  FUNCTION(AVFORMAT, AVFormatContext *, avformat_alloc_context, (void), ())                                           \
  FUNCTION(AVFORMAT, int, avformat_open_input,                                                                        \
           (AVFormatContext **ps, const char *url, const AVInputFormat *fmt, AVDictionary **options),                 \
           (ps, url, fmt, options))                                                                                   \
  FUNCTION(AVFORMAT, int, avformat_find_stream_info, (AVFormatContext *ic, AVDictionary **options), (ic, options))    \
  FUNCTION(AVFORMAT, int, av_find_best_stream,                                                                        \
           (AVFormatContext *ic, enum AVMediaType type, int wanted_stream_nb, int related_stream,                     \
            const AVCodec **decoder_ret, int flags),                                                                  \
           (ic, type, wanted_stream_nb, related_stream, decoder_ret, flags))                                          \
  FUNCTION(AVFORMAT, int, av_read_frame, (AVFormatContext *s, AVPacket *pkt), (s, pkt))                               \
  FUNCTION(AVFORMAT, int, av_seek_frame, (AVFormatContext *s, int stream_index, int64_t timestamp, int flags),        \
           (s, stream_index, timestamp, flags))                                                                       \
  FUNCTION(AVFORMAT, int, avformat_seek_file,                                                                         \
           (AVFormatContext *s, int stream_index, int64_t min_ts, int64_t ts, int64_t max_ts, int flags),             \
           (s, stream_index, min_ts, ts, max_ts, flags))                                                              \
  FUNCTION(AVFORMAT, int, avformat_index_get_entries_count, (const AVStream *st), (st))                               \
  FUNCTION(AVFORMAT, const AVIndexEntry *, avformat_index_get_entry, (AVStream *st, int idx), (st, idx))              \
  VOID(AVFORMAT, void, avformat_close_input, (AVFormatContext **s), (s))                                              \
  FUNCTION(AVFORMAT, AVIOContext *, avio_alloc_context,                                                               \
           (unsigned char *buffer, int buffer_size, int write_flag, void *opaque,                                     \
            int (*read_packet)(void *, uint8_t *, int), int (*write_packet)(void *, uint8_t *, int),                  \
            int64_t (*seek)(void *, int64_t, int)),                                                                   \
           (buffer, buffer_size, write_flag, opaque, read_packet, write_packet, seek))                                \
  VOID(AVFORMAT, void, avio_context_free, (AVIOContext **s), (s))                                                     \
  FUNCTION(AVFORMAT, int, avformat_network_init, (void), ())                                                          \
  FUNCTION(AVFORMAT, int, avio_open2,                                                                                 \
           (AVIOContext **s, const char *url, int flags, const AVIOInterruptCB *int_cb, AVDictionary **options),      \
           (s, url, flags, int_cb, options))                                                                          \
  FUNCTION(AVFORMAT, int, avio_closep, (AVIOContext **s), (s))                                                        \
  FUNCTION(AVFORMAT, int, avio_read_partial, (AVIOContext *s, unsigned char *buf, int size), (s, buf, size))          \
  FUNCTION(AVFORMAT, int64_t, avio_seek, (AVIOContext *s, int64_t offset, int whence), (s, offset, whence))           \
  FUNCTION(AVFORMAT, int64_t, avio_size, (AVIOContext *s), (s))                                                       \
  FUNCTION(AVCODEC, const AVCodec *, avcodec_find_decoder, (enum AVCodecID id), (id))                                 \
  FUNCTION(AVCODEC, const char *, avcodec_get_name, (enum AVCodecID id), (id))                                        \
  FUNCTION(AVCODEC, AVCodecContext *, avcodec_alloc_context3, (const AVCodec *codec), (codec))                        \
  FUNCTION(AVCODEC, int, avcodec_parameters_to_context, (AVCodecContext *codec, const AVCodecParameters *par),        \
           (codec, par))                                                                                              \
  FUNCTION(AVCODEC, int, avcodec_open2, (AVCodecContext *avctx, const AVCodec *codec, AVDictionary **options),        \
           (avctx, codec, options))                                                                                   \
  VOID(AVCODEC, void, avcodec_free_context, (AVCodecContext **avctx), (avctx))                                        \
  FUNCTION(AVCODEC, int, avcodec_send_packet, (AVCodecContext *avctx, const AVPacket *avpkt), (avctx, avpkt))         \
  FUNCTION(AVCODEC, int, avcodec_receive_frame, (AVCodecContext *avctx, AVFrame *frame), (avctx, frame))              \
  VOID(AVCODEC, void, avcodec_flush_buffers, (AVCodecContext *avctx), (avctx))                                        \
  FUNCTION(AVCODEC, AVPacket *, av_packet_alloc, (void), ())                                                          \
  VOID(AVCODEC, void, av_packet_free, (AVPacket **pkt), (pkt))                                                        \
  VOID(AVCODEC, void, av_packet_unref, (AVPacket *pkt), (pkt))                                                        \
  FUNCTION(SWRESAMPLE, int, swr_alloc_set_opts2,                                                                      \
           (struct SwrContext **ps, AVChannelLayout *out_ch_layout, enum AVSampleFormat out_sample_fmt,               \
            int out_sample_rate, AVChannelLayout *in_ch_layout, enum AVSampleFormat in_sample_fmt,                    \
            int in_sample_rate, int log_offset, void *log_ctx),                                                       \
           (ps, out_ch_layout, out_sample_fmt, out_sample_rate, in_ch_layout, in_sample_fmt, in_sample_rate,          \
            log_offset, log_ctx))                                                                                     \
  FUNCTION(SWRESAMPLE, int, swr_init, (struct SwrContext *s), (s))                                                    \
  VOID(SWRESAMPLE, void, swr_free, (struct SwrContext **s), (s))                                                      \
  FUNCTION(SWRESAMPLE, int, swr_convert,                                                                              \
           (struct SwrContext *s, uint8_t **out, int out_count, const uint8_t **in, int in_count),                    \
           (s, out, out_count, in, in_count))                                                                         \
  FUNCTION(SWRESAMPLE, int, swr_get_out_samples, (struct SwrContext *s, int in_samples), (s, in_samples))             \
  VOID(AVUTIL, void, av_log_set_callback, (void (*callback)(void *, int, const char *, va_list)), (callback))     \
  VOID(AVUTIL, void, av_log_set_level, (int level), (level))                                                          \
  FUNCTION(AVUTIL, void *, av_malloc, (size_t size), (size))                                                          \
  VOID(AVUTIL, void, av_freep, (void *ptr), (ptr))                                                                    \
  VOID(AVUTIL, void, av_free, (void *ptr), (ptr))                                                                     \
  FUNCTION(AVUTIL, int, av_opt_get, (void *obj, const char *name, int search_flags, uint8_t **out_val),               \
           (obj, name, search_flags, out_val))                                                                        \
  FUNCTION(AVUTIL, int, av_dict_set, (AVDictionary **pm, const char *key, const char *value, int flags),              \
           (pm, key, value, flags))                                                                                   \
  VOID(AVUTIL, void, av_dict_free, (AVDictionary **m), (m))                                                           \
  FUNCTION(AVUTIL, AVFrame *, av_frame_alloc, (void), ())                                                             \
  VOID(AVUTIL, void, av_frame_free, (AVFrame **frame), (frame))                                                       \
  FUNCTION(AVUTIL, int64_t, av_rescale_q_rnd, (int64_t a, AVRational bq, AVRational cq, enum AVRounding rnd),         \
           (a, bq, cq, rnd))                                                                                          \
  FUNCTION(AVUTIL, int, av_strerror, (int errnum, char *errbuf, size_t errbuf_size), (errnum, errbuf, errbuf_size))   \
  FUNCTION(AVUTIL, AVDictionaryEntry *, av_dict_get,                                                                  \
           (const AVDictionary *m, const char *key, const AVDictionaryEntry *prev, int flags),                        \
           (m, key, prev, flags))                                                                                     \
  FUNCTION(AVUTIL, int, av_channel_layout_copy, (AVChannelLayout *dst, const AVChannelLayout *src), (dst, src))       \
  VOID(AVUTIL, void, av_channel_layout_default, (AVChannelLayout *ch_layout, int nb_channels),                        \
       (ch_layout, nb_channels))                                                                                      \
  VOID(AVUTIL, void, av_channel_layout_uninit, (AVChannelLayout *channel_layout), (channel_layout))                   \
  FUNCTION(AVUTIL, int, av_channel_layout_compare, (const AVChannelLayout *chl, const AVChannelLayout *chl1),         \
           (chl, chl1))

#define FIELD(library, type, name, parameters, arguments) type (*name) parameters;
static struct {
  FUNCTIONS(FIELD, FIELD)
} table;

#define WRAPPER(library, type, name, parameters, arguments)                                                           \
  type splay_##name parameters { return table.name arguments; }
#define VOID_WRAPPER(library, type, name, parameters, arguments)                                                      \
  void splay_##name parameters { table.name arguments; }
FUNCTIONS(WRAPPER, VOID_WRAPPER)

static char failure[512];
static int loaded;
static void log_message(void *context, int level, const char *format, va_list arguments);

static void load(void) {
  void *handles[LIBRARIES];
  for (int i = 0; i < LIBRARIES; i++) {
    // RTLD_LOCAL: FFmpeg's symbols stay out of the global namespace, where the libraries libsndfile loads (libmpg123,
    // libvorbis…) look theirs up.
    handles[i] = dlopen(sonames[i], RTLD_NOW | RTLD_LOCAL);
    if (!handles[i]) {
      snprintf(failure, sizeof failure, "FFmpeg is not installed (%s)", dlerror());
      return;
    }
  }
  // POSIX's way to store a dlsym result in a function pointer.
#define RESOLVE(library, type, name, parameters, arguments)                                                           \
  if (!(*(void **)&table.name = dlsym(handles[library], #name))) {                                                    \
    snprintf(failure, sizeof failure, "FFmpeg's %s has no %s", sonames[library], #name);                              \
    return;                                                                                                           \
  }
  FUNCTIONS(RESOLVE, RESOLVE)
  table.av_log_set_level(AV_LOG_QUIET);
  table.av_log_set_callback(log_message);
  table.avformat_network_init();
  loaded = 1;
}

const char *splay_ffmpeg_load(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, load);
  return loaded ? NULL : failure;
}

static int read_descriptor(void *opaque, uint8_t *buffer, int size) {
  int fd = (int)(intptr_t)opaque;
  for (;;) {
    ssize_t count = read(fd, buffer, (size_t)size);
    if (count > 0) return (int)count;
    if (count == 0) return AVERROR_EOF;
    if (errno != EINTR) return AVERROR(errno);
  }
}

static int64_t seek_descriptor(void *opaque, int64_t offset, int whence) {
  int fd = (int)(intptr_t)opaque;
  if (whence & AVSEEK_SIZE) {
    struct stat status;
    return fstat(fd, &status) == 0 ? (int64_t)status.st_size : AVERROR(errno);
  }
  off_t reached = lseek(fd, (off_t)offset, whence & ~AVSEEK_FORCE);
  return reached < 0 ? AVERROR(errno) : (int64_t)reached;
}

AVIOContext *splay_ffmpeg_io_open(int fd) {
  enum { SIZE = 64 * 1024 };
  unsigned char *buffer = table.av_malloc(SIZE);
  AVIOContext *io =
      buffer ? table.avio_alloc_context(buffer, SIZE, 0, (void *)(intptr_t)fd, read_descriptor, NULL, seek_descriptor)
             : NULL;
  if (!io) {
    table.av_freep(&buffer);
    close(fd);
  }
  return io;
}

void splay_ffmpeg_io_free(AVIOContext **io) {
  if (!*io) return;
  close((int)(intptr_t)(*io)->opaque);
  // FFmpeg may have replaced the buffer it was given; the one in the context is the one to free.
  table.av_freep(&(*io)->buffer);
  table.avio_context_free(io);
}

// A URL's bytes for the demuxer: FFmpeg's own http(s) protocol, read through a context of splay's so that each read
// is small and followed by a look at the ICY metadata the protocol took out of the bytes: a title change is then
// known at the byte of the audio where it begins.
enum { TITLES = 16 };
struct url_source {
  struct url_source *next;  // in `sources`
  char *notice;             // the first "Will reconnect…" of the protocol for this connection not taken yet
  int reconnects;           // how many since
  atomic_int abandoned;     // set by splay_ffmpeg_url_abandon: every wait of the protocol ends
  AVIOContext *http;
  int64_t offset;  // bytes handed to the demuxer
  char *packet;    // the last icy_metadata_packet seen
  struct {
    int64_t offset;
    char *packet;
  } changes[TITLES];
  int first, count;
};

// The open URL sources, for the log callback to find the one a message is about.
static struct url_source *sources;
static pthread_mutex_t sources_lock = PTHREAD_MUTEX_INITIALIZER;

// FFmpeg writes nothing (splay is a terminal program); the one message kept is http's reconnect, for the stream
// whose connection it is about (the URLContext, which an AVIOContext of avio_open2 holds as its opaque).
static void log_message(void *context, int level, const char *format, va_list arguments) {
  if (level > AV_LOG_WARNING || strncmp(format, "Will reconnect", 14) != 0) return;
  char text[256];
  vsnprintf(text, sizeof text, format, arguments);
  pthread_mutex_lock(&sources_lock);
  for (struct url_source *source = sources; source; source = source->next) {
    if (source->http && source->http->opaque == context) {
      if (!source->notice) source->notice = strdup(text);
      source->reconnects++;
    }
  }
  pthread_mutex_unlock(&sources_lock);
}

char *splay_ffmpeg_url_take_notice(AVIOContext *io, int *attempts) {
  struct url_source *source = io->opaque;
  pthread_mutex_lock(&sources_lock);
  char *notice = source->notice;
  *attempts = source->reconnects;
  source->notice = NULL;
  source->reconnects = 0;
  pthread_mutex_unlock(&sources_lock);
  return notice;
}

// FFmpeg's protocol asks this while it waits (connecting, reading, between reconnects).
static int interrupted(void *opaque) {
  return atomic_load(&((struct url_source *)opaque)->abandoned);
}

void splay_ffmpeg_url_abandon(AVIOContext *io) {
  atomic_store(&((struct url_source *)io->opaque)->abandoned, 1);
}

static void note_metadata(struct url_source *source, int64_t offset) {
  uint8_t *packet = NULL;
  if (table.av_opt_get(source->http, "icy_metadata_packet", AV_OPT_SEARCH_CHILDREN, &packet) < 0 || !packet) return;
  if (!*packet || (source->packet && strcmp((char *)packet, source->packet) == 0)) {
    table.av_free(packet);
    return;
  }
  free(source->packet);
  source->packet = strdup((char *)packet);
  table.av_free(packet);
  if (!source->packet) return;
  // A full queue drops its oldest change: the newest titles are the ones a listener still hears.
  if (source->count == TITLES) {
    free(source->changes[source->first].packet);
    source->first = (source->first + 1) % TITLES;
    source->count--;
  }
  int slot = (source->first + source->count) % TITLES;
  source->changes[slot].offset = offset;
  source->changes[slot].packet = strdup(source->packet);
  if (source->changes[slot].packet) source->count++;
}

static int read_url(void *opaque, uint8_t *buffer, int size) {
  struct url_source *source = opaque;
  // At most one ICY interval's worth at a time (Icecast's is 16000 bytes or more): the protocol then parses each
  // metadata block in a read of its own, and the change is placed at the first byte after it.
  int count = table.avio_read_partial(source->http, buffer, size < 8192 ? size : 8192);
  if (count > 0) {
    note_metadata(source, source->offset);
    source->offset += count;
  }
  return count == 0 ? AVERROR_EOF : count;
}

static int64_t seek_url(void *opaque, int64_t offset, int whence) {
  struct url_source *source = opaque;
  if (whence & AVSEEK_SIZE) return table.avio_size(source->http);
  int64_t reached = table.avio_seek(source->http, offset, whence & ~AVSEEK_FORCE);
  if (reached >= 0) source->offset = reached;
  return reached;
}

AVIOContext *splay_ffmpeg_url_open(const char *url, int64_t timeout_us, int *error) {
  struct url_source *source = calloc(1, sizeof *source);
  if (!source) {
    *error = AVERROR(ENOMEM);
    return NULL;
  }
  AVDictionary *options = NULL;
  char timeout[32];
  snprintf(timeout, sizeof timeout, "%lld", (long long)timeout_us);
  table.av_dict_set(&options, "rw_timeout", timeout, 0);
  table.av_dict_set(&options, "timeout", timeout, 0);
  table.av_dict_set(&options, "icy", "1", 0);
  table.av_dict_set(&options, "user_agent", "splay", 0);
  // A stream that drops once playing is reconnected by the protocol, waiting longer each time (0, 1, 3, 7 s in
  // FFmpeg 5.1) until the delay passes the one below; a server that does not answer the first request fails at
  // once (within the timeout).
  table.av_dict_set(&options, "reconnect", "1", 0);
  table.av_dict_set(&options, "reconnect_streamed", "1", 0);
  table.av_dict_set(&options, "reconnect_delay_max", "8", 0);
  const AVIOInterruptCB interrupt = {interrupted, source};
  *error = table.avio_open2(&source->http, url, AVIO_FLAG_READ, &interrupt, &options);
  table.av_dict_free(&options);
  if (*error < 0) {
    free(source);
    return NULL;
  }
  enum { SIZE = 16 * 1024 };
  unsigned char *buffer = table.av_malloc(SIZE);
  int seekable = source->http->seekable;
  AVIOContext *io =
      buffer ? table.avio_alloc_context(buffer, SIZE, 0, source, read_url, NULL, seekable ? seek_url : NULL) : NULL;
  if (!io) {
    table.av_freep(&buffer);
    table.avio_closep(&source->http);
    free(source);
    *error = AVERROR(ENOMEM);
    return NULL;
  }
  io->seekable = seekable;
  note_metadata(source, 0);
  pthread_mutex_lock(&sources_lock);
  source->next = sources;
  sources = source;
  pthread_mutex_unlock(&sources_lock);
  return io;
}

int splay_ffmpeg_url_seekable(AVIOContext *io) {
  return ((struct url_source *)io->opaque)->http->seekable != 0;
}

char *splay_ffmpeg_url_headers(AVIOContext *io) {
  struct url_source *source = io->opaque;
  uint8_t *headers = NULL;
  if (table.av_opt_get(source->http, "icy_metadata_headers", AV_OPT_SEARCH_CHILDREN, &headers) < 0) return NULL;
  char *copy = headers ? strdup((char *)headers) : NULL;
  table.av_free(headers);
  return copy;
}

char *splay_ffmpeg_url_take_metadata(AVIOContext *io, int64_t *offset) {
  struct url_source *source = io->opaque;
  if (source->count == 0) return NULL;
  char *packet = source->changes[source->first].packet;
  *offset = source->changes[source->first].offset;
  source->first = (source->first + 1) % TITLES;
  source->count--;
  return packet;
}

void splay_ffmpeg_url_close(AVIOContext **io) {
  if (!*io) return;
  struct url_source *source = (*io)->opaque;
  pthread_mutex_lock(&sources_lock);
  for (struct url_source **link = &sources; *link; link = &(*link)->next) {
    if (*link == source) {
      *link = source->next;
      break;
    }
  }
  pthread_mutex_unlock(&sources_lock);
  free(source->notice);
  table.avio_closep(&source->http);
  while (source->count > 0) {
    free(source->changes[source->first].packet);
    source->first = (source->first + 1) % TITLES;
    source->count--;
  }
  free(source->packet);
  free(source);
  table.av_freep(&(*io)->buffer);
  table.avio_context_free(io);
}
