uniform float spacing = 10.0;  // px between dots
uniform float height = 10.0;   // px: the ripple's height
const int SIDE = 24;

void pose() {
  ivec2 cell = ivec2(INDEX % SIDE, INDEX / SIDE);
  vec2 at = (vec2(cell) - 0.5 * float(SIDE - 1)) * spacing;
  // A ripple travelling out from the centre (period 4 s: the loop), seen a
  // little from above, so its height shows as a shift up the canvas.
  float r = length(at);
  float wave = cos(TAU * (TIME / 4.0) * 2.0 - r * 0.06);
  POSITION = vec2(at.x, at.y * 0.8 + height * wave);
  float lit = 0.5 + 0.5 * wave;
  COLOR.rgb = mix(vec3(0.15, 0.35, 0.9), vec3(0.7, 0.95, 1.0), lit);
  SIZE = vec2(2.0 + 2.5 * lit);
}
