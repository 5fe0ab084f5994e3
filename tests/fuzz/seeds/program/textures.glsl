shader_type particles;
uniform sampler2D none_bound : hint_default_black;
uniform sampler2D picture : filter_nearest, repeat_enable;
uniform sampler2D ramp;
vec4 look(sampler2D s, vec2 uv) { return textureLod(s, uv, 1.0); }
void pose() {
  vec2 uv = vec2(AGE * 0.37, float(INDEX) * -0.61);
  CUSTOM = texture(picture, uv) + look(none_bound, uv) + texture(ramp, uv, 0.5);
  ivec2 size = textureSize(picture, 0) + textureSize(ramp, 2);
  USERDATA1 = texelFetch(picture, ivec2(INDEX % 5 - 1, 7 - INDEX), 0);
  POSITION = texture(ramp, vec2(AGE / LIFETIME, 0.0)).rg * float(size.x);
}
