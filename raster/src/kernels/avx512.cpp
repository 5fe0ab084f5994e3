// The AVX-512 sprite kernel: the AVX2 kernel's operations on vectors twice
// as wide, so the same bytes as draw_sprite_reference (tested):
//   - the geometry of sixteen pixels at a time (lanes = pixels);
//   - four pixels per 512-bit vector for the texels, the colour and the
//     blend (lanes = RGBA x 4);
//   - masked loads and stores at the ends of rows, where the AVX2 kernel
//     branches to a 128-bit access.
// Runs where the CPU has AVX-512 F, DQ, BW and VL, and is the default where
// it was measured faster than the AVX2 kernel (avx512_preferred below;
// docs/performance.md).
#pragma GCC diagnostic ignored "-Wpsabi"
// GCC 12's AVX-512 headers initialise _mm512_undefined_ps() from itself,
// which its own -Wuninitialized then reports at every use.
#pragma GCC diagnostic ignored "-Wuninitialized"
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <algorithm>
#include <cstddef>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "kernels/kernel_x86.h"

namespace spritz::detail {

#if SPRITZ_X86_KERNELS

bool cpu_has_avx512() {
  static const bool yes = cpu_has_avx2_fma() && __builtin_cpu_supports("avx512f") &&
                          __builtin_cpu_supports("avx512dq") &&
                          __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl");
  return yes;
}

// Where the AVX-512 kernel is the default: the CPUs where it was measured
// faster than the AVX2 kernel (the figures: docs/performance.md):
//   - AMD from Zen 5 on (family 0x1A), whose cores run 512-bit vectors at
//     full rate;
//   - Intel's Ice Lake server cores (family 6, models 0x6A Ice Lake-SP and
//     0x6C Ice Lake-D).
// Other AVX-512 CPUs (Zen 4, which splits 512-bit work in two; Skylake-SP
// and Cascade Lake, which lower their clock for it; Intel's clients and
// newer servers) are unmeasured, so they keep the AVX2 kernel unless the
// program asks; spritz_bench times both on any CPU that has them.
bool avx512_preferred() {
  static const bool yes = [] {
    if (!cpu_has_avx512()) return false;
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return false;
    const unsigned base = (eax >> 8) & 0xf, extended = (eax >> 20) & 0xff;
    const unsigned family = base == 0xf ? base + extended : base;
    const unsigned model =
        ((eax >> 4) & 0xf) | (base == 0x6 || base == 0xf ? ((eax >> 16) & 0xf) << 4 : 0);
    if (__builtin_cpu_is("amd")) return family >= 0x1a;
    if (__builtin_cpu_is("intel")) return family == 0x6 && (model == 0x6a || model == 0x6c);
    return false;
  }();
  return yes;
}

#define SPRITZ_AVX512_TARGET target("avx512f,avx512dq,avx512bw,avx512vl,avx2,fma")
#define SPRITZ_AVX512 __attribute__((SPRITZ_AVX512_TARGET, always_inline)) inline

namespace {

// Per-pixel texel offsets and weights of one mip level for the sixteen
// pixels of a group, as taps8 computes them for eight.
SPRITZ_AVX512 void taps16(const LevelView& l, __m512 u, __m512 v, int* off, __m512* ty,
                          __m512* tx) {
  const __m512 half = _mm512_set1_ps(0.5f), one = _mm512_set1_ps(1.0f);
  const __m512i one_i = _mm512_set1_epi32(1);
  const __m512 x = _mm512_fmsub_ps(u, _mm512_set1_ps(l.width), half);
  const __m512 y = _mm512_fmsub_ps(v, _mm512_set1_ps(l.height), half);
  const __m512i ix = _mm512_sub_epi32(_mm512_cvttps_epi32(_mm512_add_ps(x, one)), one_i);
  const __m512i iy = _mm512_sub_epi32(_mm512_cvttps_epi32(_mm512_add_ps(y, one)), one_i);
  *tx = _mm512_sub_ps(x, _mm512_cvtepi32_ps(ix));
  *ty = _mm512_sub_ps(y, _mm512_cvtepi32_ps(iy));
  const __m512i o = _mm512_add_epi32(_mm512_mullo_epi32(iy, _mm512_set1_epi32(l.stride)),
                                     _mm512_slli_epi32(ix, 2));
  _mm512_store_si512(off, o);
}

// The nearest texel's offset for the sixteen pixels of a group.
SPRITZ_AVX512 void nearest16(const LevelView& l, __m512 u, __m512 v, int* off) {
  const __m512 one = _mm512_set1_ps(1.0f);
  const __m512i one_i = _mm512_set1_epi32(1);
  const __m512 x = _mm512_mul_ps(u, _mm512_set1_ps(l.width));
  const __m512 y = _mm512_mul_ps(v, _mm512_set1_ps(l.height));
  const __m512i ix = _mm512_sub_epi32(_mm512_cvttps_epi32(_mm512_add_ps(x, one)), one_i);
  const __m512i iy = _mm512_sub_epi32(_mm512_cvttps_epi32(_mm512_add_ps(y, one)), one_i);
  const __m512i o = _mm512_add_epi32(_mm512_mullo_epi32(iy, _mm512_set1_epi32(l.stride)),
                                     _mm512_slli_epi32(ix, 2));
  _mm512_store_si512(off, o);
}

// Two 256-bit loads as one vector: [p | q].
SPRITZ_AVX512 __m512 load2x256(const float* p, const float* q) {
  return _mm512_insertf32x8(_mm512_castps256_ps512(_mm256_loadu_ps(p)), _mm256_loadu_ps(q), 1);
}

// The nearest texels of pixels i .. i + 3 as [rgba_i | .. | rgba_i+3].
SPRITZ_AVX512 __m512 nearest4(const LevelView& l, const int* off, int i) {
  const __m256 lo = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(l.origin + off[i])),
                                         _mm_loadu_ps(l.origin + off[i + 1]), 1);
  const __m256 hi =
      _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(l.origin + off[i + 2])),
                           _mm_loadu_ps(l.origin + off[i + 3]), 1);
  return _mm512_insertf32x8(_mm512_castps256_ps512(lo), hi, 1);
}

// The bilinear samples of pixels i .. i + 3 as [rgba_i | .. | rgba_i+3],
// each lerp fused as in bilinear2: down the columns (ty01: [ty_i x 8 |
// ty_i+1 x 8], ty23 the same for i + 2 and i + 3), then across (tx4:
// tx_i .. tx_i+3, four lanes each).
SPRITZ_AVX512 __m512 bilinear4(const LevelView& l, const int* off, int i, __m512 ty01, __m512 ty23,
                               __m512 tx4) {
  const int o0 = off[i], o1 = off[i + 1], o2 = off[i + 2], o3 = off[i + 3];
  const __m512 top01 = load2x256(l.origin + o0, l.origin + o1),
               down01 = load2x256(l.down + o0, l.down + o1);
  const __m512 top23 = load2x256(l.origin + o2, l.origin + o3),
               down23 = load2x256(l.down + o2, l.down + o3);
  const __m512 v01 = _mm512_fmadd_ps(down01, ty01, top01);  // left_i right_i | left_i+1 right_i+1
  const __m512 v23 = _mm512_fmadd_ps(down23, ty23, top23);
  const __m512 left = _mm512_shuffle_f32x4(v01, v23, _MM_SHUFFLE(2, 0, 2, 0));
  const __m512 right = _mm512_shuffle_f32x4(v01, v23, _MM_SHUFFLE(3, 1, 3, 1));
  return _mm512_fmadd_ps(_mm512_sub_ps(right, left), tx4, left);
}

// Lane numbers for _mm512_permutexvar_ps, as plain tables (an __m512i
// constant initialised at start-up would run AVX-512 code on any CPU):
// quad q's four lanes 4q .. 4q + 3, one per 128-bit quarter, and pair k's
// two lanes 2k, 2k + 1, one per 256-bit half.
alignas(64) constexpr int kQuadLanes[4][16] = {
    {0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3},
    {4, 4, 4, 4, 5, 5, 5, 5, 6, 6, 6, 6, 7, 7, 7, 7},
    {8, 8, 8, 8, 9, 9, 9, 9, 10, 10, 10, 10, 11, 11, 11, 11},
    {12, 12, 12, 12, 13, 13, 13, 13, 14, 14, 14, 14, 15, 15, 15, 15}};
alignas(64) constexpr int kPairLanes[8][16] = {
    {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1},
    {2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3},
    {4, 4, 4, 4, 4, 4, 4, 4, 5, 5, 5, 5, 5, 5, 5, 5},
    {6, 6, 6, 6, 6, 6, 6, 6, 7, 7, 7, 7, 7, 7, 7, 7},
    {8, 8, 8, 8, 8, 8, 8, 8, 9, 9, 9, 9, 9, 9, 9, 9},
    {10, 10, 10, 10, 10, 10, 10, 10, 11, 11, 11, 11, 11, 11, 11, 11},
    {12, 12, 12, 12, 12, 12, 12, 12, 13, 13, 13, 13, 13, 13, 13, 13},
    {14, 14, 14, 14, 14, 14, 14, 14, 15, 15, 15, 15, 15, 15, 15, 15}};

// The AVX2 kernel's Kernel on sixteen lanes. `Io` reads and writes the
// frame buffer for a quad of pixels (see the walks below).
template <bool trilinear, bool exact, bool nearest>
struct Kernel {
  static_assert(!(trilinear && nearest));
  const Sprite s;  // a copy: stores to the image cannot alias it
  const ExactEdges edges;
  LevelView l0, l1;
  __m512 zero, one, half, abs_mask, cx, ax_x, ay_x, half_w, half_h, neg_half_w, neg_half_h, foot_x,
      foot_y;
  __m512 inv_foot_x, inv_foot_y, inv_w, inv_h, mix, colour;
  alignas(64) int off0[16], off1[16];

  SPRITZ_AVX512 explicit Kernel(const Sprite& sprite)
      : s(sprite),
        edges(sprite),
        l0(level_view(sprite.cell->levels[static_cast<size_t>(sprite.level0)])),
        l1(level_view(sprite.cell->levels[static_cast<size_t>(sprite.level1)])) {
    zero = _mm512_setzero_ps(), one = _mm512_set1_ps(1.0f), half = _mm512_set1_ps(0.5f);
    abs_mask = _mm512_castsi512_ps(_mm512_set1_epi32(0x7fffffff));
    cx = _mm512_set1_ps(s.cx);
    ax_x = _mm512_set1_ps(s.ax_x), ay_x = _mm512_set1_ps(s.ay_x);
    half_w = _mm512_set1_ps(s.half_w), half_h = _mm512_set1_ps(s.half_h);
    neg_half_w = _mm512_set1_ps(-s.half_w), neg_half_h = _mm512_set1_ps(-s.half_h);
    foot_x = _mm512_set1_ps(s.foot_x), foot_y = _mm512_set1_ps(s.foot_y);
    inv_foot_x = _mm512_set1_ps(s.inv_foot_x), inv_foot_y = _mm512_set1_ps(s.inv_foot_y);
    inv_w = _mm512_set1_ps(s.inv_w), inv_h = _mm512_set1_ps(s.inv_h);
    mix = _mm512_set1_ps(s.level_mix);
    colour = _mm512_broadcast_f32x4(reinterpret_cast<__m128>(s.colour));
  }

  // Pixels (xs, ys) of one group, as Kernel<..>::group of the AVX2 kernel
  // computes them, lane by lane; lanes outside `valid` get no coverage.
  // Blends quads 0 .. quads - 1 (lanes 4q .. 4q + 3) through io.load(q)
  // and io.store(q, v). Returns the pixels blended.
  template <typename Io>
  SPRITZ_AVX512 int group(__m512i xs, __m512 fy_ax, __m512 fy_ay, __m512 py, __mmask16 valid,
                          int quads, Io& io) {
    const __m512 fx = _mm512_sub_ps(_mm512_add_ps(_mm512_cvtepi32_ps(xs), half), cx);
    const __m512 lx = _mm512_fmadd_ps(fx, ax_x, fy_ax);
    const __m512 ly = _mm512_fmadd_ps(fx, ay_x, fy_ay);
    const __m512 alx = _mm512_and_ps(lx, abs_mask), aly = _mm512_and_ps(ly, abs_mask);
    const __mmask16 inside = _mm512_cmp_ps_mask(_mm512_add_ps(alx, foot_x), half_w, _CMP_LE_OQ) &
                             _mm512_cmp_ps_mask(_mm512_add_ps(aly, foot_y), half_h, _CMP_LE_OQ);
    const __m512 ox = _mm512_sub_ps(_mm512_min_ps(_mm512_add_ps(alx, foot_x), half_w),
                                    _mm512_max_ps(_mm512_sub_ps(alx, foot_x), neg_half_w));
    const __m512 oy = _mm512_sub_ps(_mm512_min_ps(_mm512_add_ps(aly, foot_y), half_h),
                                    _mm512_max_ps(_mm512_sub_ps(aly, foot_y), neg_half_h));
    __m512 cov = _mm512_mul_ps(_mm512_max_ps(_mm512_mul_ps(ox, inv_foot_x), zero),
                               _mm512_max_ps(_mm512_mul_ps(oy, inv_foot_y), zero));
    if constexpr (exact) {
      const __mmask16 outside = _mm512_cmp_ps_mask(_mm512_sub_ps(alx, foot_x), half_w, _CMP_GE_OQ) |
                                _mm512_cmp_ps_mask(_mm512_sub_ps(aly, foot_y), half_h, _CMP_GE_OQ);
      const __m512 px = _mm512_cvtepi32_ps(xs);
      __m512 area;
      exact_coverage_into<__m512>(s, edges, px, py, area);
      cov = _mm512_maskz_mov_ps(static_cast<__mmask16>(~outside & valid),
                                _mm512_mask_blend_ps(inside, area, one));
    } else {
      (void)py;
      cov = _mm512_maskz_mov_ps(valid, _mm512_mask_blend_ps(inside, cov, one));
    }
    const __mmask16 covered = _mm512_cmp_ps_mask(cov, zero, _CMP_GT_OQ);
    if (!covered) return 0;

    const __m512 u = _mm512_min_ps(_mm512_max_ps(_mm512_fmadd_ps(lx, inv_w, half), zero), one);
    const __m512 v = _mm512_min_ps(_mm512_max_ps(_mm512_fnmadd_ps(ly, inv_h, half), zero), one);
    __m512 tx0 = zero, ty0 = zero, tx1 = zero, ty1 = zero;
    if constexpr (nearest)
      nearest16(l0, u, v, off0);
    else
      taps16(l0, u, v, off0, &ty0, &tx0);
    if constexpr (trilinear) taps16(l1, u, v, off1, &ty1, &tx1);

    for (int q = 0; q < quads; ++q) {
      const int i = 4 * q;
      const __m512i quad = _mm512_load_si512(kQuadLanes[q]);
      const __m512 cov4 = _mm512_permutexvar_ps(quad, cov);
      __m512 t;
      if constexpr (nearest) {
        t = nearest4(l0, off0, i);
      } else {
        const __m512i p01 = _mm512_load_si512(kPairLanes[2 * q]),
                      p23 = _mm512_load_si512(kPairLanes[2 * q + 1]);
        t = bilinear4(l0, off0, i, _mm512_permutexvar_ps(p01, ty0), _mm512_permutexvar_ps(p23, ty0),
                      _mm512_permutexvar_ps(quad, tx0));
        if constexpr (trilinear) {
          const __m512 hi =
              bilinear4(l1, off1, i, _mm512_permutexvar_ps(p01, ty1),
                        _mm512_permutexvar_ps(p23, ty1), _mm512_permutexvar_ps(quad, tx1));
          t = _mm512_fmadd_ps(_mm512_sub_ps(hi, t), mix, t);
        }
      }
      // As in the AVX2 kernel: src = colour texel cov; occl = min(1, src.a);
      // k = 1 - occl; dst.rgb = src.rgb + dst.rgb k, dst.a = occl + dst.a k.
      // Pixels of the quad with no coverage keep their bytes.
      const __m512 src = _mm512_mul_ps(_mm512_mul_ps(colour, t), cov4);
      const __m512 occl = _mm512_min_ps(_mm512_permute_ps(src, 0xff), one);
      const __m512 keep = _mm512_sub_ps(one, occl);
      const __m512 add = _mm512_mask_blend_ps(0x8888, src, occl);
      io.store(q, _mm512_fmadd_ps(io.load(q), keep, add));
    }
    return __builtin_popcount(static_cast<unsigned>(covered));
  }
};

SPRITZ_AVX512 __m512i lanes16() {
  return _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
}

// The float lanes of the first n pixels (n clamped to 0 .. 4) of a quad.
SPRITZ_AVX512 __mmask16 quad_mask(int n) {
  return static_cast<__mmask16>(n >= 4 ? 0xffff : n <= 0 ? 0 : (1u << (4 * n)) - 1);
}

// Row by row: each row's span in groups of sixteen pixels; quad q of a
// group is the four pixels x + 4q .. x + 4q + 3 of the row, masked at the
// image's right edge.
template <typename K>
SPRITZ_AVX512 uint64_t draw_rows(K& kernel, const RowSpans& spans, Image& img, int ylo, int yhi) {
  const Sprite& s = kernel.s;
  const int width = img.width;
  uint64_t blended = 0;
  Rows4 rows;
  for (int y = ylo; y < yhi; ++y) {
    const int j = (y - ylo) & 3;
    if (j == 0) rows.at(s, spans, y);
    float* __restrict row = img.row(y);
    const __m512 fy_ax = _mm512_set1_ps(rows.fy_ax[j]), fy_ay = _mm512_set1_ps(rows.fy_ay[j]);
    const __m512 py = _mm512_set1_ps(static_cast<float>(y));
    const int xa = rows.xa[j], xb = rows.xb[j];
    for (int x = xa; x < xb; x += 16) {
      const __m512i xs = _mm512_add_epi32(_mm512_set1_epi32(x), lanes16());
      const __mmask16 valid = _mm512_cmpgt_epi32_mask(_mm512_set1_epi32(xb), xs);
      struct Io {
        float* base;
        int room;  // pixels from base to the row's end
        SPRITZ_AVX512 __m512 load(int q) const {
          return _mm512_maskz_loadu_ps(quad_mask(room - 4 * q), base + 16 * q);
        }
        SPRITZ_AVX512 void store(int q, __m512 v) const {
          _mm512_mask_storeu_ps(base + 16 * q, quad_mask(room - 4 * q), v);
        }
      } io{row + static_cast<ptrdiff_t>(x) * 4, width - x};
      blended += static_cast<uint64_t>(
          kernel.group(xs, fy_ax, fy_ay, py, valid, std::min(4, (xb - x + 3) >> 2), io));
    }
  }
  return blended;
}

// Sprites at most kPackedWidth pixels wide: the spans of all their rows in
// the strip, each padded to an even length, laid end to end, as in the
// AVX2 kernel. A quad is two pixel pairs, which may lie on different rows:
// a 256-bit access each, to an address and with a mask worked out when the
// row is laid out (masked at the image's right edge and past the list's
// end). Up to 32 px rather than the AVX2 kernel's 16: with sixteen lanes a
// group, a 16-32 px sprite's rows leave many lanes idle.
constexpr int kPackedWidth = 32;
// The list's length: sixteen rows (one batch, below), each writing up to
// kPackedWidth lanes, and a group reading up to sixteen past the end.
constexpr int kPackedLanes = 16 * kPackedWidth + 16;

// long: the packed walk is one hot loop whose lane list, masks and stores
// must stay in registers across a batch of rows; split into calls, the
// compiler spills them (the bit-exact kernel tests pin its output).
template <typename K>
SPRITZ_AVX512 uint64_t draw_packed(K& kernel, const RowSpans& spans, Image& img, int ylo, int yhi) {
  const Sprite& s = kernel.s;
  // Rows are laid out sixteen at a time (a batch). What a lane
  // needs that is the same along its row (the row terms, the span's end,
  // where the row starts in the list) is kept once per row, in a table of
  // sixteen that a group reads with one permute per value; each lane keeps
  // only its row's number, as a byte. Storing every value per lane, as the
  // AVX2 kernel does, takes five unaligned 512-bit stores per 16 lanes of a
  // row, measurably slower (bench/).
  alignas(64) uint8_t row_of[kPackedLanes];
  alignas(64) int xa[16], xb[16], first[16];
  alignas(64) float fy[16];
  // Per pixel pair: where it is in the frame buffer, and which of its
  // floats are in the image (0xff both pixels, 0x0f the first only, 0
  // none: past the list's end).
  alignas(64) float* dst[kPackedLanes / 2];
  alignas(64) uint8_t mask[kPackedLanes / 2];
  // Where a pair that touches no pixel points (mask 0): this thread's own
  // stack. Masked off, its load and store change no byte, yet the core
  // still takes the cache line. Pointed at the image's first pixel, every
  // such pair drawn on one core would pull a line the other core writes,
  // back and forth between the caches all frame long (docs/performance.md).
  alignas(64) float sink[8] = {};
  const int width = img.width;
  const __m512i pair_offset = _mm512_setr_epi64(0, 32, 64, 96, 128, 160, 192, 224);  // bytes
  const __m256i pair_x = _mm256_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14);
  const __m256i mask_of_room = _mm256_setr_epi32(0, 0x0f, 0xff, 0, 0, 0, 0, 0);
  const __m512 ax_y = _mm512_set1_ps(s.ax_y), ay_y = _mm512_set1_ps(s.ay_y);
  // Lanes laid out per row: the span's most pixels, in whole groups.
  const int row_lanes = (s.x1 - s.x0 + 15) & ~15;
  uint64_t blended = 0;
  for (int y0 = ylo; y0 < yhi; y0 += 16) {
    const int rows = std::min(16, yhi - y0);
    // fy = y + 0.5 - cy of each row, its terms fy ax_y and fy ay_y, and its
    // span, as Rows4 computes them.
    const __m512 fy16 = _mm512_sub_ps(
        _mm512_add_ps(_mm512_cvtepi32_ps(_mm512_add_epi32(_mm512_set1_epi32(y0), lanes16())),
                      _mm512_set1_ps(0.5f)),
        _mm512_set1_ps(s.cy));
    _mm512_store_ps(fy, fy16);
    for (int j = 0; j < rows; j += 4) RowSpansAvx2::at4(spans, _mm_load_ps(fy + j), xa + j, xb + j);
    const __m512 row_ax = _mm512_mul_ps(fy16, ax_y), row_ay = _mm512_mul_ps(fy16, ay_y);
    int n = 0;
    for (int r = 0; r < rows; ++r) {
      const int a = xa[r];
      first[r] = a - n;  // pixel x of the lane at list position p is first[r] + p
      const __m128i rv = _mm_set1_epi8(static_cast<char>(r));
      const float* start = img.row(y0 + r) + static_cast<ptrdiff_t>(a) * 4;
      for (int h = 0; h < row_lanes; h += 16) {
        _mm_storeu_si128(reinterpret_cast<__m128i*>(row_of + n + h), rv);
        const __m256i room = _mm256_min_epi32(
            _mm256_max_epi32(_mm256_sub_epi32(_mm256_set1_epi32(width - a - h), pair_x),
                             _mm256_setzero_si256()),
            _mm256_set1_epi32(2));
        // A pair past the image's right edge touches no memory (mask 0);
        // its address is the sink rather than a place past the row, which
        // on the last row lies outside the image.
        _mm512_storeu_si512(
            dst + (n + h) / 2,
            _mm512_mask_blend_epi64(
                _mm256_cmpeq_epi32_mask(room, _mm256_setzero_si256()),
                _mm512_add_epi64(_mm512_set1_epi64(reinterpret_cast<long long>(start + h * 4)),
                                 pair_offset),
                _mm512_set1_epi64(reinterpret_cast<long long>(sink))));
        _mm_storel_epi64(reinterpret_cast<__m128i*>(mask + (n + h) / 2),
                         _mm256_cvtepi32_epi8(_mm256_permutevar8x32_epi32(mask_of_room, room)));
      }
      n += (xb[r] - a + 1) & ~1;  // even length; the extra pixel is not valid
    }
    // The last group's lanes past the end: row 0's terms (finite), no
    // coverage, and pairs that touch no memory.
    _mm_storeu_si128(reinterpret_cast<__m128i*>(row_of + n), _mm_setzero_si128());
    _mm512_storeu_si512(dst + n / 2, _mm512_set1_epi64(reinterpret_cast<long long>(sink)));
    _mm_storel_epi64(reinterpret_cast<__m128i*>(mask + n / 2), _mm_setzero_si128());
    const __m512i first_v = _mm512_load_si512(first), xb_v = _mm512_load_si512(xb);
    const __m512i n_v = _mm512_set1_epi32(n), y0_v = _mm512_set1_epi32(y0);
    for (int g = 0; g < n; g += 16) {
      struct Io {
        float* const* dst;
        const uint8_t* mask;
        SPRITZ_AVX512 __m512 load(int q) const {
          const int k = 2 * q;
          return _mm512_insertf32x8(_mm512_castps256_ps512(_mm256_maskz_loadu_ps(mask[k], dst[k])),
                                    _mm256_maskz_loadu_ps(mask[k + 1], dst[k + 1]), 1);
        }
        SPRITZ_AVX512 void store(int q, __m512 v) const {
          const int k = 2 * q;
          _mm256_mask_storeu_ps(dst[k], mask[k], _mm512_castps512_ps256(v));
          // The upper pair goes through a register: folded into the store,
          // it becomes a masked vextractf32x8 to memory, and on Zen 5 that
          // faults when its masked-off half lies on an unmapped page (the
          // image's last pixel at the end of its allocation), where a
          // masked vmovups does not (tests: kernels/avx512's object code).
          __m256 upper = _mm512_extractf32x8_ps(v, 1);
          asm("" : "+v"(upper));
          _mm256_mask_storeu_ps(dst[k + 1], mask[k + 1], upper);
        }
      } io{dst + g / 2, mask + g / 2};
      const __m512i at = _mm512_add_epi32(_mm512_set1_epi32(g), lanes16());
      const __m512i r =
          _mm512_cvtepu8_epi32(_mm_load_si128(reinterpret_cast<const __m128i*>(row_of + g)));
      const __m512i xs = _mm512_add_epi32(_mm512_permutexvar_epi32(r, first_v), at);
      const __mmask16 valid = _mm512_cmpgt_epi32_mask(_mm512_permutexvar_epi32(r, xb_v), xs) &
                              _mm512_cmpgt_epi32_mask(n_v, at);
      blended += static_cast<uint64_t>(
          kernel.group(xs, _mm512_permutexvar_ps(r, row_ax), _mm512_permutexvar_ps(r, row_ay),
                       _mm512_cvtepi32_ps(_mm512_add_epi32(r, y0_v)), valid,
                       std::min(4, (((n - g) >> 1) + 1) >> 1), io));
    }
  }
  return blended;
}

// Sprites whose pixel bounds in the strip fit kTinySide x kTinySide (the
// particles of 1 to 3 px that fill skies and galaxies by the million): one
// group, quad q being row ylo + q's pixels x0 .. x0 + 3, one masked access
// each. The rows' spans are not worked out: the reference walks the whole
// bounds too, and a pixel of them that the sprite misses gets no coverage
// and is neither counted nor changed. Half the cost of the packed walk for
// such a sprite, whose spans and lane list took longer than its pixels.
constexpr int kTinySide = 4;

template <typename K>
SPRITZ_AVX512 uint64_t draw_tiny(K& kernel, Image& img, int ylo, int yhi) {
  const Sprite& s = kernel.s;
  const __m512i lane = lanes16();
  const __m512i ys = _mm512_add_epi32(_mm512_set1_epi32(ylo), _mm512_srli_epi32(lane, 2));
  const __m512i xs =
      _mm512_add_epi32(_mm512_set1_epi32(s.x0), _mm512_and_si512(lane, _mm512_set1_epi32(3)));
  const __mmask16 valid = _mm512_cmpgt_epi32_mask(_mm512_set1_epi32(s.x1), xs) &
                          _mm512_cmpgt_epi32_mask(_mm512_set1_epi32(yhi), ys);
  // fy = y + 0.5 - cy and its terms, as Rows4 computes them.
  const __m512 py = _mm512_cvtepi32_ps(ys);
  const __m512 fy = _mm512_sub_ps(_mm512_add_ps(py, _mm512_set1_ps(0.5f)), _mm512_set1_ps(s.cy));
  struct Io {
    float* base;
    ptrdiff_t stride;  // floats per image row
    __mmask16 mask;    // the bounds' pixels of a row
    SPRITZ_AVX512 __m512 load(int q) const {
      return _mm512_maskz_loadu_ps(mask, base + q * stride);
    }
    SPRITZ_AVX512 void store(int q, __m512 v) const {
      _mm512_mask_storeu_ps(base + q * stride, mask, v);
    }
  } io{img.row(ylo) + static_cast<ptrdiff_t>(s.x0) * 4, static_cast<ptrdiff_t>(img.width) * 4,
       quad_mask(s.x1 - s.x0)};
  return static_cast<uint64_t>(kernel.group(xs, _mm512_mul_ps(fy, _mm512_set1_ps(s.ax_y)),
                                            _mm512_mul_ps(fy, _mm512_set1_ps(s.ay_y)), py, valid,
                                            yhi - ylo, io));
}

template <bool trilinear, bool exact, bool nearest = false>
__attribute__((SPRITZ_AVX512_TARGET)) uint64_t draw(const Sprite& sprite, Image& img, int row_begin,
                                                    int row_end) {
  Kernel<trilinear, exact, nearest> kernel(sprite);
  const int ylo = std::max(sprite.y0, row_begin), yhi = std::min(sprite.y1, row_end);
  if (ylo >= yhi) return 0;
  if (sprite.x1 - sprite.x0 <= kTinySide && yhi - ylo <= kTinySide)
    return draw_tiny(kernel, img, ylo, yhi);
  const RowSpans spans(sprite);
  return sprite.x1 - sprite.x0 <= kPackedWidth ? draw_packed(kernel, spans, img, ylo, yhi)
                                               : draw_rows(kernel, spans, img, ylo, yhi);
}

}  // namespace

__attribute__((SPRITZ_AVX512_TARGET)) uint64_t draw_sprite_avx512(const Sprite& s, Image& img,
                                                                  int row_begin, int row_end) {
  if (s.nearest)
    return s.exact_edges ? draw<false, true, true>(s, img, row_begin, row_end)
                         : draw<false, false, true>(s, img, row_begin, row_end);
  const bool trilinear = s.level_mix > 0;
  if (s.exact_edges)
    return trilinear ? draw<true, true>(s, img, row_begin, row_end)
                     : draw<false, true>(s, img, row_begin, row_end);
  return trilinear ? draw<true, false>(s, img, row_begin, row_end)
                   : draw<false, false>(s, img, row_begin, row_end);
}

#else

bool cpu_has_avx512() {
  return false;
}
bool avx512_preferred() {
  return false;
}

uint64_t draw_sprite_avx512(const Sprite& s, Image& img, int row_begin, int row_end) {
  return draw_sprite_portable(s, img, row_begin, row_end);
}

#endif

}  // namespace spritz::detail
