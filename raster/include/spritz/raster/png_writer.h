// A PNG written in pieces of rows (docs/rendering.md, "PNG"): each piece of
// kPngPieceRows rows is filtered and compressed on its own, on any thread
// and in any order, and finish() stitches them into one valid PNG. The
// bytes depend only on the pixels and the mode, never on which thread
// encoded which piece or in what order (tested).
//
// The default mode (PngMode::kFast) is spritz's own encoder, after fpnge:
// each row is Paeth-filtered (the first row of a piece takes Sub: it has no
// row above it in its piece), and each piece is one deflate block of
// Huffman codes fitted to that piece's bytes, with runs of zero bytes (the
// transparent or flat areas particle frames are mostly made of) coded as
// matches one byte back. It has no LZ77 search, which is what lets it run
// at memory speed. A piece ends byte-aligned on an empty stored block, so
// pieces concatenate; each is an IDAT chunk of its own, and the zlib
// stream's Adler-32 is combined from the pieces'. No Debian package offers such an encoder (libpng,
// zlib, libdeflate and stb all search for matches); it is written here.
//
// PngMode::kSmall keeps the pieces' RGBA8 rows and compresses the whole
// image at finish(), as encode_png always has: libdeflate level 9 with
// stb's per-row adaptive filters.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <vector>

#include "spritz/raster/png.h"

namespace spritz {

inline constexpr int kPngPieceRows = 32;

class PngWriter {
 public:
  // An 8-bit RGBA PNG of width x height (each within [1, 2^31)), with
  // `texts` as tEXt chunks after IHDR, in `mode`.
  PngWriter(int width, int height, std::vector<PngText> texts = {}, PngMode mode = PngMode::kFast);

  int pieces() const { return static_cast<int>(pieces_.size()); }
  // Piece k holds rows [k * kPngPieceRows, min(height, (k + 1) * kPngPieceRows)).
  int piece_rows(int k) const;

  // Filters and compresses piece k from its rows of RGBA8 (rows after one
  // another, width * 4 bytes each). Pieces may be added from several
  // threads at once, each piece once.
  void add_piece(int k, const uint8_t* rgba);

  // The fast mode's two halves of add_piece, for a caller that keeps an
  // encoded piece to add again where the same rows recur (a background
  // strip): encode_piece compresses piece k's rows (thread-safe, no state;
  // the result depends only on the rows' bytes), add_encoded adds it as
  // piece k. The fast mode only.
  struct Encoded {
    std::vector<uint8_t> chunk;  // the piece's IDAT chunk
    uint32_t adler = 1;
    uint64_t raw_size = 0;
  };
  Encoded encode_piece(int k, const uint8_t* rgba) const;
  void add_encoded(int k, Encoded piece);
  bool fast() const { return !small_; }

  // The PNG's bytes; every piece must have been added (throws
  // spritz::Error otherwise). Once only.
  std::vector<uint8_t> finish();
  // The same bytes in parts that follow one another (the head, a chunk per
  // piece, the tail), for a writer that writes them in turn without
  // joining them in memory first.
  std::vector<std::vector<uint8_t>> finish_parts();

  // Streams the same bytes instead: from here on (before any piece is
  // added) the head, then each piece as soon as it and every piece before
  // it are done, go to `sink` in file order, on whichever adding thread
  // completes the run, while other pieces are still being compressed; a
  // piece's bytes are freed once written. finish_stream() writes the tail.
  // `sink` returns 0 or an errno; after an error nothing more is written and
  // finish_stream() returns it. The fast mode only (kSmall keeps finish()).
  using Sink = std::function<int(const uint8_t* data, size_t size)>;
  void stream_to(Sink sink);
  int finish_stream();

 private:
  void write_ready();  // the stream's writer: pieces in order while ready
  std::vector<uint8_t> head() const;
  std::vector<uint8_t> tail() const;
  struct Piece {
    std::vector<uint8_t> bytes;  // kFast: its IDAT chunk
    uint32_t adler = 1;          // Adler-32 of the piece's filtered rows
    uint64_t raw_size = 0;       // bytes of filtered rows it stands for
    bool done = false;
  };
  int width_, height_;
  bool small_;
  std::vector<PngText> texts_;
  std::vector<Piece> pieces_;
  std::vector<uint8_t> rgba_;  // kSmall: the image's RGBA8 rows
  // Streaming (stream_to): the next piece to write, whether a thread is
  // writing, and the first error.
  Sink sink_;
  std::mutex stream_mutex_;
  size_t next_ = 0;
  bool writing_ = false;
  int stream_error_ = 0;
};

// The parts of finish_parts() as one file's bytes.
std::vector<uint8_t> join_png_parts(std::vector<std::vector<uint8_t>>&& parts);

// The fast encoder's deflate data for rows of RGBA8 (exposed for tests and
// benchmarks): the rows filtered as a piece, compressed as one non-final
// deflate block ending byte-aligned. Returns the Adler-32 of the filtered
// rows; `raw_size` receives their length.
uint32_t deflate_png_piece(const uint8_t* rgba, int width, int rows, std::vector<uint8_t>& out,
                           uint64_t* raw_size);
// Its two halves, for timing them apart: the rows filtered (a filter byte
// and width * 4 bytes each), and those bytes as the deflate block.
void filter_png_piece(const uint8_t* rgba, int width, int rows, std::vector<uint8_t>& filtered);
void deflate_png_filtered(const uint8_t* filtered, size_t size, std::vector<uint8_t>& out);

}  // namespace spritz
