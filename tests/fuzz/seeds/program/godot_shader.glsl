shader_type particles;
render_mode disable_velocity;
uniform float speed = 40.0;
uint hash(uint x) {
  x = ((x >> uint(16)) ^ x) * uint(73244475);
  x = ((x >> uint(16)) ^ x) * uint(73244475);
  return (x >> uint(16)) ^ x;
}
void start() {
  uint s = hash(NUMBER + RANDOM_SEED);
  float a = float(s % 6283u) / 1000.0;
  VELOCITY = vec3(cos(a), sin(a), 0.0) * speed;
  TRANSFORM[3].xy = EMISSION_TRANSFORM[3].xy + vec2(float(INDEX % 4u), 0.0);
}
void process() {
  VELOCITY.y += 98.0 * DELTA;
  TRANSFORM[3].xyz += VELOCITY * DELTA;
  CUSTOM.y += DELTA / LIFETIME;
  if (CUSTOM.y > 1.0) ACTIVE = false;
  if (RESTART) COLOR = vec4(1.0, 0.5, 0.2, 1.0);
}
