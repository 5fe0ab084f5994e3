uniform float pull = 8000.0;   // px^2/s^2: the attraction at r px is pull / r
uniform float swirl = 1.5;     // how much of it turns the sparks around
uniform float radius = 50.0;   // px: the attractor's circle
uniform float angular = 1.0;   // rad/s: how fast it goes round

vec2 attractor(float t) {
  return radius * vec2(cos(angular * t), sin(angular * t * 1.7) * 0.6);
}

void process() {
  vec2 d = attractor(TIME) - POSITION;
  float r2 = dot(d, d) + 60.0;   // softened, so nothing flies off at the centre
  vec2 toward = d * inversesqrt(r2);
  vec2 around = vec2(-toward.y, toward.x);
  VELOCITY += (toward + swirl * around) * (pull * inversesqrt(r2)) * DELTA;
  VELOCITY *= 1.0 - 1.2 * DELTA;  // drag, so they spiral in rather than orbit
  // Falling in: burn bright, then go.
  float close = 1.0 - smoothstep(6.0, 30.0, sqrt(r2));
  CUSTOM.x = max(CUSTOM.x, close);
}

void pose() {
  COLOR.rgb = mix(COLOR.rgb, vec3(1.0, 0.85, 0.6), CUSTOM.x);
  COLOR.a *= 1.0 - 0.7 * CUSTOM.x * smoothstep(0.5, 1.0, AGE / LIFETIME);
}
