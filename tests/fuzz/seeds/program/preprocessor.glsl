shader_type particles;
#define SPEED 40.0
#define SQUARE(x) ((x) * (x))
#define HEAT (USERDATA1.w)
#if CURRENT_RENDERER == RENDERER_COMPATIBILITY
#define fma(a, b, c) ((a) * (b) + (c))
#elif defined(SPEED) && (1 << 3) % 5 == 3
#define ALT 1
#endif
#ifndef ALT
#error no alt
#endif
void process() {
  HEAT += SQUARE(DELTA) * SPEED;
  VELOCITY.y -= SPEED * DELTA;
}
