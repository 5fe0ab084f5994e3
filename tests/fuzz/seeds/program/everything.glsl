shader_type particles;
render_mode disable_velocity;
struct P { vec2 at; float w[2]; };
const int N = 3;
uniform float speed : hint_range(0, 10) = 2.5;
uniform vec4 tint : source_color = vec4(1.0, 0.5, 0.2, 1.0);
uint hash(uint x) {
  x = ((x >> uint(16)) ^ x) * uint(73244475);
  return (x >> uint(16)) ^ x;
}
void split(float x, out float whole, inout float count) { whole = floor(x); count += 1.0; }
float first_over(float limit) {
  for (int i = 0; i < 100; i++) { if (float(i * i) > limit) return float(i); }
  return -1.0;
}
void start() {
  float a[N] = float[](1.0, 2.0, 3.0);
  a[INDEX] += rand(1u);
  P p = P(vec2(1.0), float[2](3.0, 4.0));
  p.w[INDEX % 2] = a[INDEX % 3];
  CUSTOM = vec4(p.at, p.w[0], p.w[1]);
  USERDATA1.x = float(hash(KEY));
}
void process() {
  mat2 m = mat2(cos(DELTA), sin(DELTA), -sin(DELTA), cos(DELTA));
  VELOCITY = m * VELOCITY + vec2(0.0, -9.8) * DELTA * speed;
  int k = INDEX;
  while (k > 0) { k -= 2; if (k == 3) continue; if (k < -5) break; }
  do { k++; } while (k < 2);
  if (AGE > 2.0) ACTIVE = false;
}
void pose() {
  float w; float c = 0.0;
  split(AGE * 3.7, w, c);
  bool b = INDEX > 1 && (c++ > 0.0) || !(w < 1.0) ^^ true;
  POSITION += vec2(first_over(AGE * 10.0), b ? noise(vec3(AGE, TIME, 1.0)) : determinant(inverse(mat3(2.0))));
  COLOR = tint * vec4(smoothstep(0.0, 1.0, fract(TIME)), mix(0.2, 0.9, AGE), pow(abs(AGE) + 1.0, 1.5), 1.0);
  COLOR.rgb *= vec3(lessThan(vec2(AGE), vec2(1.0)), 1.0) * floatBitsToUint(1.0) / 1065353216.0;
}
