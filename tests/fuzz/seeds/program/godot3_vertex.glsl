shader_type particles;
void vertex() {
  if (RESTART) {
    VELOCITY = vec3(float(INDEX % 7) * 10.0, -40.0, 0.0);
    TRANSFORM[0].xy = vec2(2.0, 0.0);
  } else {
    VELOCITY.y += 98.0 * DELTA;
    TRANSFORM[0].xy *= 0.99;
  }
}
