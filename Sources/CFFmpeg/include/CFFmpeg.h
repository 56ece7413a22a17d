#ifndef SPLAY_CFFMPEG_H
#define SPLAY_CFFMPEG_H

// FFmpeg (libavformat, libavcodec, libswresample, libavutil) for splay's second decoder, loaded on first use.
//
// splay does not link FFmpeg: libavformat and libavcodec bring about 130 shared libraries with them, and loading
// them at every start costs tens of milliseconds per process (an empty C program linked with them: 1.0 -> 33 ms
// on the development machine), three times splay's whole time to first sound. splay_ffmpeg_load() opens the
// libraries the first time a file needs them (only files libsndfile cannot open do), and the splay_* functions
// below call FFmpeg's functions of the same name (without the prefix) through the pointers it resolved. Only the
// FFmpeg headers are used at build time; the libraries are optional at run time (Debian: libavformat59,
// libswresample4).
//
// The rest are what Swift cannot reach: function-like macros (AVERROR, AVERROR_EOF, AV_NOPTS_VALUE) and I/O
// callbacks.

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/avutil.h>
#include <libavutil/channel_layout.h>
#include <libavutil/dict.h>
#include <libavutil/error.h>
#include <libavutil/frame.h>
#include <libavutil/opt.h>
#include <libswresample/swresample.h>

/// Loads FFmpeg once per process (later calls return at once) and sets its log level to quiet, so that it never
/// writes to the terminal. Returns NULL when loaded, else a message saying what is missing. Thread-safe.
const char *splay_ffmpeg_load(void);

/// An AVIOContext that reads the open descriptor `fd` (and closes it when freed by splay_ffmpeg_io_free), so
/// that what the caller checked with fstat is what FFmpeg reads, and a path is never taken for a URL
/// (`http:…`, `concat:…`). NULL when out of memory (the descriptor is closed then too).
AVIOContext *splay_ffmpeg_io_open(int fd);
/// Frees a context made by splay_ffmpeg_io_open, its buffer, and closes its descriptor; sets *io to NULL.
void splay_ffmpeg_io_free(AVIOContext **io);

/// Opens `url` (http or https) with FFmpeg's protocol, asking for ICY metadata, each read and the connection allowed
/// `timeout_us`; a dropped live stream is reconnected by the protocol. The context it returns is splay's, for a
/// demuxer (seekable when the server takes ranges); NULL and *error (an AVERROR) when the URL cannot be opened.
AVIOContext *splay_ffmpeg_url_open(const char *url, int64_t timeout_us, int *error);
/// Whether the server takes byte ranges (a file), as opposed to a live stream.
int splay_ffmpeg_url_seekable(AVIOContext *io);
/// The ICY headers the server sent ("icy-name: …\n" lines), or NULL; free() it.
char *splay_ffmpeg_url_headers(AVIOContext *io);
/// The oldest ICY metadata block not taken yet ("StreamTitle='…';"), with the byte offset of the audio it begins
/// at (in the bytes handed to the demuxer, as AVPacket.pos counts them); NULL when none is waiting. free() it.
char *splay_ffmpeg_url_take_metadata(AVIOContext *io, int64_t *offset);
/// FFmpeg's first message about reconnecting this stream ("Will reconnect at 1234 in 1 second(s), error=End of
/// file.") since the last call, with how many attempts were made (*attempts), or NULL. free() it.
char *splay_ffmpeg_url_take_notice(AVIOContext *io, int *attempts);
/// Ends every wait of the stream's protocol now and later (a read that waits for the network returns an error):
/// for a stream nobody will read again. Safe from any thread, while another reads.
void splay_ffmpeg_url_abandon(AVIOContext *io);
/// Closes a context made by splay_ffmpeg_url_open and its connection; sets *io to NULL.
void splay_ffmpeg_url_close(AVIOContext **io);

static inline int splay_averror_eagain(void) { return AVERROR(EAGAIN); }
static inline int splay_averror_eof(void) { return AVERROR_EOF; }
static inline int64_t splay_av_nopts_value(void) { return AV_NOPTS_VALUE; }

// FFmpeg's functions, as loaded by splay_ffmpeg_load() (call it first, and only on success call these).
AVFormatContext *splay_avformat_alloc_context(void);
int splay_avformat_open_input(AVFormatContext **ps, const char *url, const AVInputFormat *fmt, AVDictionary **options);
int splay_avformat_find_stream_info(AVFormatContext *ic, AVDictionary **options);
int splay_av_find_best_stream(AVFormatContext *ic, enum AVMediaType type, int wanted_stream_nb, int related_stream,
                              const AVCodec **decoder_ret, int flags);
int splay_av_read_frame(AVFormatContext *s, AVPacket *pkt);
int splay_av_seek_frame(AVFormatContext *s, int stream_index, int64_t timestamp, int flags);
int splay_avformat_seek_file(AVFormatContext *s, int stream_index, int64_t min_ts, int64_t ts, int64_t max_ts,
                             int flags);
int splay_avformat_index_get_entries_count(const AVStream *st);
const AVIndexEntry *splay_avformat_index_get_entry(AVStream *st, int idx);
void splay_avformat_close_input(AVFormatContext **s);

const AVCodec *splay_avcodec_find_decoder(enum AVCodecID id);
const char *splay_avcodec_get_name(enum AVCodecID id);
AVCodecContext *splay_avcodec_alloc_context3(const AVCodec *codec);
int splay_avcodec_parameters_to_context(AVCodecContext *codec, const AVCodecParameters *par);
int splay_avcodec_open2(AVCodecContext *avctx, const AVCodec *codec, AVDictionary **options);
void splay_avcodec_free_context(AVCodecContext **avctx);
int splay_avcodec_send_packet(AVCodecContext *avctx, const AVPacket *avpkt);
int splay_avcodec_receive_frame(AVCodecContext *avctx, AVFrame *frame);
void splay_avcodec_flush_buffers(AVCodecContext *avctx);
AVPacket *splay_av_packet_alloc(void);
void splay_av_packet_free(AVPacket **pkt);
void splay_av_packet_unref(AVPacket *pkt);

int splay_swr_alloc_set_opts2(struct SwrContext **ps, AVChannelLayout *out_ch_layout,
                              enum AVSampleFormat out_sample_fmt, int out_sample_rate, AVChannelLayout *in_ch_layout,
                              enum AVSampleFormat in_sample_fmt, int in_sample_rate, int log_offset, void *log_ctx);
int splay_swr_init(struct SwrContext *s);
void splay_swr_free(struct SwrContext **s);
int splay_swr_convert(struct SwrContext *s, uint8_t **out, int out_count, const uint8_t **in, int in_count);
int splay_swr_get_out_samples(struct SwrContext *s, int in_samples);

AVFrame *splay_av_frame_alloc(void);
void splay_av_frame_free(AVFrame **frame);
int64_t splay_av_rescale_q_rnd(int64_t a, AVRational bq, AVRational cq, enum AVRounding rnd);
int splay_av_strerror(int errnum, char *errbuf, size_t errbuf_size);
int splay_av_dict_set(AVDictionary **pm, const char *key, const char *value, int flags);
void splay_av_dict_free(AVDictionary **m);
AVDictionaryEntry *splay_av_dict_get(const AVDictionary *m, const char *key, const AVDictionaryEntry *prev, int flags);
int splay_av_channel_layout_copy(AVChannelLayout *dst, const AVChannelLayout *src);
void splay_av_channel_layout_default(AVChannelLayout *ch_layout, int nb_channels);
void splay_av_channel_layout_uninit(AVChannelLayout *channel_layout);
int splay_av_channel_layout_compare(const AVChannelLayout *chl, const AVChannelLayout *chl1);

#endif
