// spritz's own elementary functions: the same bits on every CPU.
//
// The C library picks its sin, exp, pow, ... by CPU (glibc runs other code
// with AVX2 and FMA than without, and arm64's is other code again), and they
// differ in the last bit. spritz promises the same bytes for the same effect,
// seed and time on any machine, so the model, the raster, the importers and
// the program virtual machine call these instead: written with IEEE + - * /,
// sqrt, floor and integer operations only, compiled without contraction into
// fused multiply-adds (docs/model.md, "Elementary functions").
//
// Accuracy, measured against MPFR's correctly rounded results over millions
// of arguments (tests/lib/elementary_test.cpp; the figures are in
// docs/model.md): at most 1 ulp for every function on its whole domain, most
// within 0.6. Special values (infinities, NaN, signed zeros, overflow and
// underflow) follow C's Annex F. fmod is exact, as the C library's is.
#pragma once

namespace spritz::math {

double sin(double x);
double cos(double x);
void sincos(double x, double* s, double* c);
double tan(double x);
double asin(double x);
double acos(double x);
double atan(double x);
double atan2(double y, double x);

double exp(double x);
double exp2(double x);
double expm1(double x);
double log(double x);
double log2(double x);
double log10(double x);
double log1p(double x);
double pow(double x, double y);

double cbrt(double x);
double hypot(double x, double y);
double fmod(double x, double y);

}  // namespace spritz::math
