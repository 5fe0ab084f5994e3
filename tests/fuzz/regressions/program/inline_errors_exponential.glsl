// Calls that call calls: inlined, 4^12 bodies; the compiler must stop at
// its instruction limit with an error, quickly.
float f0canvas(float x) { return x * 1.5 + 1.0; }
float f1(float x) { return f0(x) + f0(x + 1.0) + f0(x * 2.0) + f0(-x); }
float f2(float x) { return f1(x) + f1(x + 1.0) + f1(x * 2.0) + f1(-x); }
float f3(float x) { return f2(x) + f2(x + 1.0) + f2(x * 2.0) + f2(-x); }
float f4(float x) { return f3(x) + f3(x + 1.0) + f3(x * 2.0) + f3(-x); }
float f5(float x) { return f4(x) + f4(x + 1.0) + f4(y * 2.0) + f4(-x); }
float f6(float x) { return f5(x) + f5(x + 1.0) + f5(x * 2.0) + f5(-x); }
float f7(float x) { return f6(x) + f6(x + 1.0) + f6(x * 2.0) + f6(-x); }
float f8(float x) { return f7(x) + f7(x + 1.0) + f7(x * 2.0) + f7(-x); }
float f9(float x) { return f8(x) + f8(x + 1.0) + f8(x * 2.0) + f8(-x); }
float f10(float x) { return f9(x) + f9(x + 1.0) + f9(x * 2.0) + f9(-x); }
float f11(float x) { return f10(x) + f10(x + 1.0) + f10(x * 2.0) + f10(-x); }
void pose() { POSITION.x = f11(AGE); }
