// PngWriter (png_writer.h): PNG pieces filtered and Huffman-coded on their
// own, stitched into one zlib stream.
#include "spritz/raster/png_writer.h"

#include <libdeflate.h>
#include <zlib.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <numeric>
#include <string>

#include "png_chunks.h"
#include "spritz/error.h"
#include "spritz/system/memory.h"

namespace spritz {
namespace {

using png_chunks::put_be32;
using png_chunks::put_chunk;

// --- Filtering ---------------------------------------------------------------

using U8x16 = uint8_t __attribute__((vector_size(16)));

inline U8x16 load16(const uint8_t* p) {
  U8x16 v;
  std::memcpy(&v, p, 16);
  return v;
}

inline int paeth(int a, int b, int c) {
  const int pa = std::abs(b - c), pb = std::abs(a - c), pc = std::abs(a + b - 2 * c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

#if defined(__SSE2__)
// Paeth's predictor (PNG spec 9.4) on eight 16-bit lanes: a left, b above,
// c above-left; the lane whose distance is smallest, ties to a, then b.
// Written in SSE2 intrinsics: GCC's generic vectors turned the widening
// and narrowing into one lane at a time, two thirds of the encoder's time.
inline __m128i paeth8(__m128i a, __m128i b, __m128i c) {
  const __m128i zero = _mm_setzero_si128();
  __m128i pa = _mm_sub_epi16(b, c), pb = _mm_sub_epi16(a, c);
  __m128i pc = _mm_add_epi16(pa, pb);
  pa = _mm_max_epi16(pa, _mm_sub_epi16(zero, pa));
  pb = _mm_max_epi16(pb, _mm_sub_epi16(zero, pb));
  pc = _mm_max_epi16(pc, _mm_sub_epi16(zero, pc));
  const __m128i smallest = _mm_min_epi16(pc, _mm_min_epi16(pa, pb));
  const __m128i use_a = _mm_cmpeq_epi16(pa, smallest), use_b = _mm_cmpeq_epi16(pb, smallest);
  const __m128i b_or_c = _mm_or_si128(_mm_and_si128(use_b, b), _mm_andnot_si128(use_b, c));
  return _mm_or_si128(_mm_and_si128(use_a, a), _mm_andnot_si128(use_a, b_or_c));
}

// 16 bytes of a Paeth-filtered row: x - paeth(a, b, c), byte by byte.
inline void paeth_row16(const uint8_t* cur, const uint8_t* up, uint8_t* out) {
  const __m128i zero = _mm_setzero_si128();
  const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(cur - 4));
  const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(up));
  const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(up - 4));
  const __m128i lo =
      paeth8(_mm_unpacklo_epi8(a, zero), _mm_unpacklo_epi8(b, zero), _mm_unpacklo_epi8(c, zero));
  const __m128i hi =
      paeth8(_mm_unpackhi_epi8(a, zero), _mm_unpackhi_epi8(b, zero), _mm_unpackhi_epi8(c, zero));
  const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(cur));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm_sub_epi8(x, _mm_packus_epi16(lo, hi)));
}
#endif

// Writes the filter byte and the filtered bytes of one row of `n` bytes
// (RGBA8: 4 bytes per pixel): Sub without `up`, else Paeth.
void filter_row(const uint8_t* cur, const uint8_t* up, size_t n, uint8_t* out) {
  out[0] = up ? 4 : 1;
  ++out;
  // The first pixel has nothing to its left (a = c = 0).
  const size_t first = std::min<size_t>(n, 4);
  for (size_t i = 0; i < first; ++i) out[i] = static_cast<uint8_t>(cur[i] - (up ? up[i] : 0));
  size_t i = 4;
  if (!up) {
    for (; i + 16 <= n; i += 16) {
      const U8x16 v = load16(cur + i) - load16(cur + i - 4);
      std::memcpy(out + i, &v, 16);
    }
    for (; i < n; ++i) out[i] = static_cast<uint8_t>(cur[i] - cur[i - 4]);
    return;
  }
#if defined(__SSE2__)
  for (; i + 16 <= n; i += 16) paeth_row16(cur + i, up + i, out + i);
#endif
  for (; i < n; ++i) out[i] = static_cast<uint8_t>(cur[i] - paeth(cur[i - 4], up[i], up[i - 4]));
}

// --- Tokens ------------------------------------------------------------------
//
// The filtered bytes are literals, except that a run of zero bytes found
// at an 8-byte step (so every run of 15 or more) is a literal 0 and
// matches of distance 1 (each 3..258 bytes) for the rest of the run. The
// same walk counts symbols and then writes them.

constexpr int kEob = 256;
constexpr int kLitLenSymbols = 286;
constexpr int kMaxBits = 15;

// Deflate's length code for a match of `len` (3..258) bytes: symbol, extra
// bits and their value (RFC 1951 3.2.5).
struct LengthCode {
  uint16_t symbol;
  uint8_t extra_bits;
  uint8_t extra;
};

const std::array<LengthCode, 259>& length_codes() {
  static const std::array<LengthCode, 259> table = [] {
    static constexpr int kBase[29] = {3,  4,  5,  6,   7,   8,   9,   10,  11, 13,
                                      15, 17, 19, 23,  27,  31,  35,  43,  51, 59,
                                      67, 83, 99, 115, 131, 163, 195, 227, 258};
    static constexpr int kExtra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                       2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
    std::array<LengthCode, 259> t{};
    for (int s = 0; s < 29; ++s) {
      const int last = s == 28 ? 258 : kBase[s] + (1 << kExtra[s]) - 1;
      for (int len = kBase[s]; len <= last && len <= 258; ++len)
        t[static_cast<size_t>(len)] = {static_cast<uint16_t>(257 + s),
                                       static_cast<uint8_t>(kExtra[s]),
                                       static_cast<uint8_t>(len - kBase[s])};
    }
    return t;
  }();
  return table;
}

// The lengths of the matches a zero run of `rest` bytes after its literal
// takes: 258 at a time, the last two split so that none is under 3; fewer
// than 3 are literals.
template <typename Match, typename Literal>
inline void split_run(size_t rest, Match match, Literal literal) {
  while (rest >= 3) {
    size_t len = std::min<size_t>(rest, 258);
    if (rest - len > 0 && rest - len < 3) len = rest - 3;
    match(static_cast<int>(len));
    rest -= len;
  }
  for (; rest > 0; --rest) literal(0);
}

// Walks `n` filtered bytes: literal8(p) for 8 literals at p, literal(b) for
// one, match(len) for a distance-1 match.
template <typename Literal8, typename Literal, typename Match>
void walk(const uint8_t* f, size_t n, Literal8 literal8, Literal literal, Match match) {
  size_t i = 0;
  while (i + 8 <= n) {
    uint64_t w;
    std::memcpy(&w, f + i, 8);
    if (w != 0) {
      literal8(f + i);
      i += 8;
      continue;
    }
    size_t j = i + 8;
    while (j + 8 <= n) {
      std::memcpy(&w, f + j, 8);
      if (w != 0) break;
      j += 8;
    }
    while (j < n && f[j] == 0) ++j;
    literal(0);
    split_run(j - i - 1, match, literal);
    i = j;
  }
  for (; i < n; ++i) literal(f[i]);
}

// --- Huffman codes -----------------------------------------------------------

// Code lengths for `freq` (0 = unused) of at most `limit` bits, by
// Huffman's construction; when the longest would exceed the limit, the
// counts are halved (keeping every used symbol at least 1) and the code is
// built again. At least two symbols get a length, so the code is complete.
void huffman_lengths(const uint32_t* freq_in, int n, int limit, uint8_t* lengths) {
  std::vector<uint64_t> freq(freq_in, freq_in + n);
  int used = 0;
  for (int i = 0; i < n; ++i) used += freq[static_cast<size_t>(i)] > 0;
  for (int i = 0; used < 2 && i < n; ++i)
    if (freq[static_cast<size_t>(i)] == 0) {
      freq[static_cast<size_t>(i)] = 1;
      ++used;
    }
  struct Node {
    uint64_t weight;
    int left, right;  // -1 for a leaf
    int symbol;
  };
  std::vector<Node> nodes;
  std::vector<int> order, depth;
  while (true) {
    nodes.clear();
    for (int i = 0; i < n; ++i)
      if (freq[static_cast<size_t>(i)] > 0)
        nodes.push_back({freq[static_cast<size_t>(i)], -1, -1, i});
    // Leaves sorted by weight (then symbol, for a deterministic code);
    // the two-queue construction merges leaves and inner nodes in order.
    std::sort(nodes.begin(), nodes.end(), [](const Node& a, const Node& b) {
      return a.weight != b.weight ? a.weight < b.weight : a.symbol < b.symbol;
    });
    const int leaves = static_cast<int>(nodes.size());
    int next_leaf = 0, next_inner = leaves;
    auto take = [&]() {
      const bool leaf = next_leaf < leaves && (next_inner >= static_cast<int>(nodes.size()) ||
                                               nodes[static_cast<size_t>(next_leaf)].weight <=
                                                   nodes[static_cast<size_t>(next_inner)].weight);
      return leaf ? next_leaf++ : next_inner++;
    };
    for (int k = 0; k < leaves - 1; ++k) {
      const int a = take(), b = take();
      nodes.push_back(
          {nodes[static_cast<size_t>(a)].weight + nodes[static_cast<size_t>(b)].weight, a, b, -1});
    }
    depth.assign(nodes.size(), 0);
    int longest = 0;
    for (int k = static_cast<int>(nodes.size()) - 1; k >= leaves; --k) {
      const Node& node = nodes[static_cast<size_t>(k)];
      depth[static_cast<size_t>(node.left)] = depth[static_cast<size_t>(k)] + 1;
      depth[static_cast<size_t>(node.right)] = depth[static_cast<size_t>(k)] + 1;
    }
    for (int k = 0; k < leaves; ++k) longest = std::max(longest, depth[static_cast<size_t>(k)]);
    if (longest <= limit) {
      std::fill(lengths, lengths + n, uint8_t{0});
      for (int k = 0; k < leaves; ++k)
        lengths[nodes[static_cast<size_t>(k)].symbol] =
            static_cast<uint8_t>(depth[static_cast<size_t>(k)]);
      return;
    }
    for (uint64_t& f : freq)
      if (f > 0) f = (f >> 1) | 1;
  }
}

// Canonical codes (RFC 1951 3.2.2) for `lengths`, bit-reversed: deflate
// sends Huffman codes from their top bit, the bit writer from bit 0.
void canonical_codes(const uint8_t* lengths, int n, uint16_t* codes) {
  int count[kMaxBits + 1] = {};
  for (int i = 0; i < n; ++i) ++count[lengths[i]];
  count[0] = 0;
  int next[kMaxBits + 2] = {};
  for (int bits = 1, code = 0; bits <= kMaxBits; ++bits) {
    code = (code + count[bits - 1]) << 1;
    next[bits] = code;
  }
  for (int i = 0; i < n; ++i) {
    const int len = lengths[i];
    if (len == 0) {
      codes[i] = 0;
      continue;
    }
    const int code = next[len]++;
    int rev = 0;
    for (int b = 0; b < len; ++b) rev |= ((code >> b) & 1) << (len - 1 - b);
    codes[i] = static_cast<uint16_t>(rev);
  }
}

// --- Bits --------------------------------------------------------------------

// Into a std::vector<uint8_t> or a thread's WrittenBytes.
template <typename Bytes>
class BitWriter {
 public:
  explicit BitWriter(Bytes& out) : out_(out) {}
  // Up to 32 bits at once.
  void put(uint64_t bits, int count) {
    buf_ |= bits << used_;
    used_ += count;
    if (used_ >= 32) {
      ensure(4);
      const uint32_t word = static_cast<uint32_t>(buf_);
      std::memcpy(out_.data() + pos_, &word, 4);  // little-endian, as x86 and ARM store
      pos_ += 4;
      buf_ >>= 32;
      used_ -= 32;
    }
  }
  // Pads to a byte boundary and flushes, leaving the vector at its length.
  void flush_to_byte() {
    const int bytes = (used_ + 7) / 8;
    ensure(static_cast<size_t>(bytes));
    for (int k = 0; k < bytes; ++k) out_[pos_++] = static_cast<uint8_t>(buf_ >> (8 * k));
    buf_ = 0;
    used_ = 0;
    out_.resize(pos_);
  }
  void reserve(size_t bytes) {
    if (out_.size() < pos_ + bytes) {
      reserve_prefaulted(out_, pos_ + bytes);
      out_.resize(pos_ + bytes);
    }
  }

 private:
  void ensure(size_t bytes) {
    if (out_.size() < pos_ + bytes) out_.resize(std::max(out_.size() * 2, pos_ + bytes + 4096));
  }
  Bytes& out_;
  size_t pos_ = 0;
  uint64_t buf_ = 0;
  int used_ = 0;
};

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "BitWriter stores little-endian words");

// The dynamic block header (RFC 1951 3.2.7) for the literal/length lengths
// `ll` and the two distance codes (both 1 bit).
template <typename Bytes>
void write_header(BitWriter<Bytes>& bw, const uint8_t* ll, int hlit) {
  static constexpr int kOrder[19] = {16, 17, 18, 0, 8,  7, 9,  6, 10, 5,
                                     11, 4,  12, 3, 13, 2, 14, 1, 15};
  std::vector<uint8_t> all(ll, ll + hlit);
  all.push_back(1);
  all.push_back(1);
  // Run-length code the lengths with symbols 16 (repeat 3-6), 17 (3-10
  // zeros) and 18 (11-138 zeros).
  struct Item {
    uint8_t symbol, extra_bits, extra;
  };
  std::vector<Item> items;
  for (size_t i = 0; i < all.size();) {
    const uint8_t v = all[i];
    size_t run = 1;
    while (i + run < all.size() && all[i + run] == v) ++run;
    size_t left = run;
    if (v == 0) {
      while (left >= 11) {
        const size_t k = std::min<size_t>(left, 138);
        items.push_back({18, 7, static_cast<uint8_t>(k - 11)});
        left -= k;
      }
      if (left >= 3) {
        items.push_back({17, 3, static_cast<uint8_t>(left - 3)});
        left = 0;
      }
    } else {
      items.push_back({v, 0, 0});
      --left;
      while (left >= 3) {
        const size_t k = std::min<size_t>(left, 6);
        items.push_back({16, 2, static_cast<uint8_t>(k - 3)});
        left -= k;
      }
    }
    for (; left > 0; --left) items.push_back({v, 0, 0});
    i += run;
  }
  uint32_t freq[19] = {};
  for (const Item& it : items) ++freq[it.symbol];
  uint8_t cl[19];
  uint16_t cc[19];
  huffman_lengths(freq, 19, 7, cl);
  canonical_codes(cl, 19, cc);
  int hclen = 19;
  while (hclen > 4 && cl[kOrder[hclen - 1]] == 0) --hclen;
  bw.put(0, 1);  // BFINAL 0: the stream goes on
  bw.put(2, 2);  // BTYPE 10: dynamic Huffman codes
  bw.put(static_cast<uint64_t>(hlit - 257), 5);
  bw.put(1, 5);  // HDIST: 2 distance codes
  bw.put(static_cast<uint64_t>(hclen - 4), 4);
  for (int k = 0; k < hclen; ++k) bw.put(cl[kOrder[k]], 3);
  for (const Item& it : items) {
    bw.put(cc[it.symbol], cl[it.symbol]);
    if (it.extra_bits) bw.put(it.extra, it.extra_bits);
  }
}

// One block of Huffman codes for the filtered bytes, then an empty stored
// block that ends the piece on a byte boundary.
template <typename Bytes>
void deflate_filtered(const uint8_t* f, size_t n, Bytes& out) {
  const std::array<LengthCode, 259>& lc = length_codes();
  uint32_t freq[kLitLenSymbols] = {};
  walk(
      f, n,
      [&](const uint8_t* p) {
        for (int k = 0; k < 8; ++k) ++freq[p[k]];
      },
      [&](uint8_t b) { ++freq[b]; }, [&](int len) { ++freq[lc[static_cast<size_t>(len)].symbol]; });
  freq[kEob] = 1;
  uint8_t lengths[kLitLenSymbols];
  uint16_t codes[kLitLenSymbols];
  huffman_lengths(freq, kLitLenSymbols, kMaxBits, lengths);
  canonical_codes(lengths, kLitLenSymbols, codes);
  int hlit = kLitLenSymbols;
  while (hlit > 257 && lengths[hlit - 1] == 0) --hlit;
  // A literal's code and length in one word: code | length << 16.
  uint32_t lit[256];
  for (int b = 0; b < 256; ++b) lit[b] = codes[b] | static_cast<uint32_t>(lengths[b]) << 16;
  // A match of each length: its length code, extra bits and the 1-bit
  // distance code 0 (distance 1), as one bit string.
  uint32_t match_bits[259] = {};
  uint8_t match_len[259] = {};
  for (int len = 3; len <= 258; ++len) {
    const LengthCode& c = lc[static_cast<size_t>(len)];
    const int l = lengths[c.symbol];
    match_bits[len] = codes[c.symbol] | static_cast<uint32_t>(c.extra) << l;
    match_len[len] = static_cast<uint8_t>(l + c.extra_bits + 1);  // + distance code "0"
  }

  out.clear();
  BitWriter<Bytes> bw(out);
  bw.reserve(n / 2 + 1024);
  write_header(bw, lengths, hlit);
  walk(
      f, n,
      [&](const uint8_t* p) {
        for (int k = 0; k < 8; k += 2) {
          const uint32_t a = lit[p[k]], b = lit[p[k + 1]];
          const int la = static_cast<int>(a >> 16);
          bw.put((a & 0xffff) | static_cast<uint64_t>(b & 0xffff) << la,
                 la + static_cast<int>(b >> 16));
        }
      },
      [&](uint8_t b) { bw.put(lit[b] & 0xffff, static_cast<int>(lit[b] >> 16)); },
      [&](int len) { bw.put(match_bits[len], match_len[len]); });
  bw.put(codes[kEob], lengths[kEob]);
  // An empty stored block: BFINAL 0, BTYPE 00, pad to the byte, LEN 0, NLEN ~0.
  bw.put(0, 3);
  bw.flush_to_byte();
  out.insert(out.end(), {0x00, 0x00, 0xff, 0xff});
}

// The rows filtered as a piece: a filter byte and width * 4 bytes each.
template <typename Bytes>
void filter_rows(const uint8_t* rgba, int width, int rows, Bytes& filtered) {
  const size_t row = static_cast<size_t>(width) * 4, stride = row + 1;
  reserve_prefaulted(filtered, stride * static_cast<size_t>(rows));
  filtered.resize(stride * static_cast<size_t>(rows));
  for (int y = 0; y < rows; ++y) {
    const uint8_t* cur = rgba + static_cast<size_t>(y) * row;
    filter_row(cur, y > 0 ? cur - row : nullptr, row,
               filtered.data() + static_cast<size_t>(y) * stride);
  }
}

// deflate_png_piece, with its filtered rows in `filtered`.
template <typename Bytes>
uint32_t deflate_piece(const uint8_t* rgba, int width, int rows, Bytes& filtered, Bytes& out,
                       uint64_t* raw_size) {
  filter_rows(rgba, width, rows, filtered);
  deflate_filtered(filtered.data(), filtered.size(), out);
  *raw_size = filtered.size();
  return libdeflate_adler32(1, filtered.data(), filtered.size());
}

}  // namespace

void filter_png_piece(const uint8_t* rgba, int width, int rows, std::vector<uint8_t>& filtered) {
  filter_rows(rgba, width, rows, filtered);
}

void deflate_png_filtered(const uint8_t* filtered, size_t size, std::vector<uint8_t>& out) {
  deflate_filtered(filtered, size, out);
}

uint32_t deflate_png_piece(const uint8_t* rgba, int width, int rows, std::vector<uint8_t>& out,
                           uint64_t* raw_size) {
  thread_local std::vector<uint8_t> filtered;
  return deflate_piece(rgba, width, rows, filtered, out, raw_size);
}

PngWriter::PngWriter(int width, int height, std::vector<PngText> texts, PngMode mode)
    : width_(width),
      height_(height),
      small_(mode == PngMode::kSmall),
      texts_(std::move(texts)),
      pieces_(static_cast<size_t>((height + kPngPieceRows - 1) / kPngPieceRows)) {
  if (width < 1 || height < 1) throw Error("a PNG needs at least one pixel");
  if (small_) rgba_.resize(static_cast<size_t>(width) * 4 * static_cast<size_t>(height));
}

int PngWriter::piece_rows(int k) const {
  return std::min(height_ - k * kPngPieceRows, kPngPieceRows);
}

void PngWriter::add_piece(int k, const uint8_t* rgba) {
  Piece& p = pieces_.at(static_cast<size_t>(k));
  const int rows = piece_rows(k);
  const size_t row = static_cast<size_t>(width_) * 4;
  if (small_) {
    std::memcpy(rgba_.data() + static_cast<size_t>(k) * kPngPieceRows * row, rgba,
                row * static_cast<size_t>(rows));
    p.done = true;
    return;
  }
  add_encoded(k, encode_piece(k, rgba));
}

PngWriter::Encoded PngWriter::encode_piece(int k, const uint8_t* rgba) const {
  if (small_) throw Error("PngWriter::encode_piece: --png small encodes the image whole");
  // Filtered and compressed into this thread's scratch buffers (beside its
  // strip's, on one 2 MiB page: ScratchScope), then kept as an IDAT chunk
  // of its own at its exact size.
  thread_local WrittenBytes filtered, scratch;
  Encoded e;
  {
    ScratchScope in_scratch;
    e.adler = deflate_piece(rgba, width_, piece_rows(k), filtered, scratch, &e.raw_size);
  }
  reserve_prefaulted(e.chunk, scratch.size() + 12);
  put_chunk(e.chunk, "IDAT", scratch.data(), scratch.size());
  return e;
}

void PngWriter::add_encoded(int k, Encoded piece) {
  if (small_) throw Error("PngWriter::add_encoded: --png small encodes the image whole");
  Piece& p = pieces_.at(static_cast<size_t>(k));
  p.bytes = std::move(piece.chunk);
  p.adler = piece.adler;
  p.raw_size = piece.raw_size;
  if (!sink_) {
    p.done = true;
    return;
  }
  {
    std::lock_guard<std::mutex> lock(stream_mutex_);
    p.done = true;
  }
  write_ready();
}

std::vector<uint8_t> PngWriter::head() const {
  std::vector<uint8_t> head = png_chunks::head(width_, height_, 8, texts_);
  // The zlib stream across the IDAT chunks: its header first (deflate, a
  // 32 KB window, no dictionary; 0x7801 % 31 == 0), then a chunk per piece.
  static constexpr uint8_t kZlibHeader[2] = {0x78, 0x01};
  put_chunk(head, "IDAT", kZlibHeader, 2);
  return head;
}

std::vector<uint8_t> PngWriter::tail() const {
  uint32_t adler = 1;
  for (const Piece& p : pieces_)
    adler =
        static_cast<uint32_t>(adler32_combine(adler, p.adler, static_cast<z_off_t>(p.raw_size)));
  // The final block: fixed codes (BFINAL 1, BTYPE 01) holding only the end
  // of block (seven 0 bits); then the Adler-32 of all the filtered rows.
  std::vector<uint8_t> end = {0x03, 0x00}, tail;
  put_be32(end, adler);
  put_chunk(tail, "IDAT", end.data(), end.size());
  put_chunk(tail, "IEND", nullptr, 0);
  return tail;
}

std::vector<std::vector<uint8_t>> PngWriter::finish_parts() {
  if (sink_) throw Error("PngWriter::finish: the PNG is streamed (finish_stream)");
  for (const Piece& p : pieces_)
    if (!p.done) throw Error("PngWriter::finish: a piece of the image was never added");
  std::vector<std::vector<uint8_t>> parts;
  if (small_) {
    parts.push_back(encode_png_adaptive(rgba_.data(), width_, height_, texts_));
    std::vector<uint8_t>().swap(rgba_);
    return parts;
  }
  parts.push_back(head());
  for (Piece& p : pieces_) parts.push_back(std::move(p.bytes));
  parts.push_back(tail());
  for (Piece& p : pieces_) p.done = false;
  return parts;
}

void PngWriter::stream_to(Sink sink) {
  if (small_) throw Error("PngWriter: --png small is encoded whole, not streamed");
  sink_ = std::move(sink);
  const std::vector<uint8_t> h = head();
  stream_error_ = sink_(h.data(), h.size());
}

void PngWriter::write_ready() {
  std::unique_lock<std::mutex> lock(stream_mutex_);
  if (writing_) return;  // the writing thread will find this piece ready
  writing_ = true;
  while (next_ < pieces_.size() && pieces_[next_].done) {
    Piece& p = pieces_[next_];
    int err = stream_error_;
    // Written outside the lock, so that other threads can mark their
    // pieces done meanwhile; only this thread (writing_) touches p.bytes
    // and stream_error_ now.
    lock.unlock();
    if (err == 0) err = sink_(p.bytes.data(), p.bytes.size());
    std::vector<uint8_t>().swap(p.bytes);
    lock.lock();
    stream_error_ = err;
    ++next_;
  }
  writing_ = false;
}

int PngWriter::finish_stream() {
  if (!sink_) throw Error("PngWriter::finish_stream: the PNG is not streamed (stream_to)");
  for (const Piece& p : pieces_)
    if (!p.done) throw Error("PngWriter::finish: a piece of the image was never added");
  write_ready();  // nothing left when every add_piece has returned; cheap to be sure
  if (next_ != pieces_.size()) throw Error("PngWriter::finish_stream: pieces left unwritten");
  if (stream_error_ == 0) {
    const std::vector<uint8_t> t = tail();
    stream_error_ = sink_(t.data(), t.size());
  }
  sink_ = nullptr;
  return stream_error_;
}

std::vector<uint8_t> PngWriter::finish() {
  return join_png_parts(finish_parts());
}

std::vector<uint8_t> join_png_parts(std::vector<std::vector<uint8_t>>&& parts) {
  if (parts.size() == 1) return std::move(parts[0]);
  size_t size = 0;
  for (const auto& part : parts) size += part.size();
  std::vector<uint8_t> png;
  reserve_prefaulted(png, size);
  for (const auto& part : parts) png.insert(png.end(), part.begin(), part.end());
  return png;
}

std::vector<uint8_t> encode_png(const uint8_t* rgba, int width, int height,
                                const std::vector<PngText>& texts, PngMode mode) {
  PngWriter writer(width, height, texts, mode);
  const size_t piece = static_cast<size_t>(width) * 4 * kPngPieceRows;
  for (int k = 0; k < writer.pieces(); ++k)
    writer.add_piece(k, rgba + static_cast<size_t>(k) * piece);
  return writer.finish();
}

}  // namespace spritz
