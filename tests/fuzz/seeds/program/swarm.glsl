uniform float scale = 60.0;  // px per unit of the heart
uniform float period = 5.0;  // s: gather, hold, scatter, drift

// The heart (x^2 + y^2 - 1)^3 <= x^2 y^3.
bool inside(vec2 q) {
  float f = dot(q, q) - 1.0;
  return f * f * f <= q.x * q.x * q.y * q.y * q.y;
}

// A place inside the heart, by trying up to 32 random points of its box
// and keeping the first inside: the same for one mote at every clock
// (rand(k) is the mote's own).
vec2 inside_heart() {
  for (int k = 0; k < 32; k++) {
    vec2 q = vec2(rand(uint(10 + 2 * k)), rand(uint(11 + 2 * k))) * 2.3 - vec2(1.15, 1.0);
    if (inside(q)) return q;
  }
  return vec2(0.0, 0.3);
}

// Where the ray from inside the heart at angle a leaves it, by bisection.
vec2 heart_edge(float a) {
  vec2 d = vec2(cos(a), sin(a)), centre = vec2(0.0, 0.1);
  float lo = 0.0, hi = 1.6;
  for (int i = 0; i < 14; i++) {
    float mid = 0.5 * (lo + hi);
    if (inside(centre + d * mid)) lo = mid; else hi = mid;
  }
  return centre + d * lo;
}

void pose() {
  float phase = mod(TIME, period) / period;
  // Where the mote drifts in the cloud: its own slow orbit through noise.
  float a = TAU * rand(0u), r = 105.0 * sqrt(rand(1u));
  vec2 home = r * vec2(cos(a), sin(a));
  vec2 cloud = home + 30.0 * vec2(noise(vec2(float(INDEX) * 0.37, TIME * 0.3)),
                                  noise(vec2(float(INDEX) * 0.37 + 50.0, TIME * 0.3)));
  // Its place in the heart, beating.
  float beat = 1.0 + 0.06 * pow(max(sin(TIME * 7.0), 0.0), 4.0);
  vec2 q = rand(2u) < 0.5 ? heart_edge(TAU * rand(4u)) : inside_heart();
  vec2 shape = q * scale * beat + vec2(0.0, -8.0);
  // Gather over 0.1..0.4 of the period, scatter over 0.65..0.9, each mote a
  // little early or late.
  float lag = 0.06 * rand(3u);
  float gather = smoothstep(0.1 + lag, 0.4 + lag, phase) * (1.0 - smoothstep(0.65 + lag, 0.9 + lag, phase));
  POSITION = mix(cloud, shape, gather);
  COLOR.rgb = mix(vec3(0.45, 0.55, 1.0), vec3(1.0, 0.35, 0.55), gather);
  SIZE = vec2(4.0 + 2.0 * gather);
}
