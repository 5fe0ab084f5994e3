shader_type particles;
void start() { VELOCITY = vec3(float(INDEX), -60.0, 0.0); }
void process() {
  CUSTOM.x += 1.0;
  for (int i = 0; i < 3; i++) {
    if (mod(CUSTOM.x + float(i), 2.0) == 0.0 &&
        emit_subparticle(TRANSFORM, VELOCITY * 0.5, COLOR, CUSTOM,
                         FLAG_EMIT_POSITION | FLAG_EMIT_VELOCITY | FLAG_EMIT_CUSTOM))
      CUSTOM.z += 1.0;
  }
  bool b = CUSTOM.x > 3.0 ? emit_subparticle(mat4(1.0), vec3(0.0), vec4(1.0), vec4(0.0), 0u) : false;
  if (b) ACTIVE = false;
}
