// Argument reduction for sin, cos and tan.
//
// x = n pi/2 + y, n the nearest integer to x 2/pi, |y| <= pi/4. y is small
// where x is near a multiple of pi/2, so it must be found to many more bits
// than x has: no double lies closer than about 2^-61 to a multiple of pi/2
// (Muller, "Elementary Functions", 11.3), so y needs pi/2 to about
// 53 + 61 + 53 bits past x's last bit for y to be right to 2^-53 of itself.
//
// Medium x (|x| < 2^18 pi): Cody and Waite's reduction with pi/2 in three
// pieces, the first two of 33 bits, so n * piece is exact for n < 2^20:
//   y = ((x - n c1) - n c2) - n c3 - n c3tail
// The first subtraction is exact (Sterbenz: x and n c1 are within a factor
// of two); the second is kept exact with two_sum. When y is not small that
// is all: n c3 is rounded by 2^-102 at most, 2^-82 of a y above 2^-20.
// When it is small, n c3 is taken exactly too and the tail added.
//
// Large x: Payne and Hanek's reduction. x = M 2^E with M a 53-bit integer;
// x 2/pi = M 2^E sum_i b_i 2^-i over the bits b_i of 2/pi. The bits with
// E - i >= 2 only add multiples of 4 to n, which does not change sin or cos,
// so only a window of 256 bits of 2/pi starting near bit E is multiplied by
// M, in integers: the product's bits around the binary point give n mod 4
// and the fraction to 128 bits, and what the window leaves out is below
// 2^-138.
#include "reduce.h"

#include <cmath>
#include <cstdint>

#include "bits.h"
#include "constants.h"

namespace spritz::math::detail {
namespace {

__extension__ typedef unsigned __int128 u128;  // GCC and Clang, x86-64 and arm64

constexpr double kMediumLimit = 0x1.921fb54442d18p+19;  // 2^18 pi: n < 2^19

Reduced reduce_medium(double ax) {
  const double fn = round_to_integer(ax * kTwoOverPi);
  const double r = ax - fn * kPio2Part1;
  const DD s = two_sum(r, -(fn * kPio2Part2));
  if (s.hi > 0x1p-20 || s.hi < -0x1p-20)
    return {static_cast<int>(fn), fast_two_sum(s.hi, s.lo - fn * kPio2Part3)};
  const DD p3 = two_prod(fn, kPio2Part3);
  return {static_cast<int>(fn), add(s, DD{-p3.hi, -p3.lo - fn * kPio2Part3Tail})};
}

// M times the window of 2/pi's bits from word j0: a 320-bit product in five
// 64-bit limbs, least significant first.
void window_product(uint64_t m, int j0, uint64_t p[5]) {
  u128 carry = 0;
  for (int i = 3; i >= 0; --i) {
    const u128 t = static_cast<u128>(m) * kTwoOverPiBits[j0 + i] + carry;
    p[3 - i] = static_cast<uint64_t>(t);
    carry = t >> 64;
  }
  p[4] = static_cast<uint64_t>(carry);
}

// Bits pos .. pos + 63 of the product.
uint64_t bits_at(const uint64_t p[5], int pos) {
  const int limb = pos / 64, off = pos % 64;
  const uint64_t lo = limb < 5 ? p[limb] >> off : 0;
  const uint64_t hi = off != 0 && limb + 1 < 5 ? p[limb + 1] << (64 - off) : 0;
  return lo | hi;
}

// u 2^-128 as a double-double, u != 0.
DD from_fixed128(u128 u) {
  const auto top = static_cast<uint64_t>(u >> 64);
  const int lz = top != 0 ? __builtin_clzll(top) : 64 + __builtin_clzll(static_cast<uint64_t>(u));
  u <<= lz;
  const double hi = static_cast<double>(static_cast<uint64_t>(u >> 75)) * pow2(-53 - lz);
  const u128 rest = u & ((static_cast<u128>(1) << 75) - 1);
  const double lo = static_cast<double>(static_cast<uint64_t>(rest >> 11)) * pow2(-117 - lz);
  return fast_two_sum(hi, lo);
}

Reduced reduce_large(double ax) {
  const uint64_t b = bits_of(ax);
  const int e = static_cast<int>((b >> 52) & 0x7ff) - 1075;  // ax = m 2^e
  const uint64_t m = (b & ((uint64_t{1} << 52) - 1)) | (uint64_t{1} << 52);
  const int j0 = e >= 2 ? (e - 2) / 64 : 0;
  uint64_t p[5];
  window_product(m, j0, p);
  const int point = 64 * (j0 + 4) - e;  // the product's fraction bits
  int n = static_cast<int>(bits_at(p, point) & 3);
  u128 f = (static_cast<u128>(bits_at(p, point - 64)) << 64) | bits_at(p, point - 128);
  bool negative = false;
  if (f >> 127) {  // fraction >= 1/2: the nearest n is one more
    n += 1;
    f = ~f + 1;
    negative = true;
  }
  if (f == 0) return {n, {}};
  const DD y = mul(from_fixed128(f), DD{kPio2Hi, kPio2Lo});
  return {n, negative ? DD{-y.hi, -y.lo} : y};
}

}  // namespace

Reduced reduce_pio2(double x) {
  const double ax = x < 0 ? -x : x;
  Reduced r = ax < kMediumLimit ? reduce_medium(ax) : reduce_large(ax);
  if (x < 0) r = {-r.n, {-r.y.hi, -r.y.lo}};
  return r;
}

}  // namespace spritz::math::detail
