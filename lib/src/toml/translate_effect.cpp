// The effect file's top level: [effect], [canvas] (motion blur included),
// [check], and the walk over its [[emitter]] tables.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "format.h"
#include "spritz/eval.h"
#include "spritz/hash.h"
#include "spritz/load.h"
#include "spritz/noise.h"
#include "toml/keys.h"
#include "toml/spellings.h"
#include "toml/text.h"
#include "toml/translator.h"

namespace spritz::toml_load {

namespace fs = std::filesystem;

void Translator::read_effect(const toml::table& t, Effect& fx) {
  check_keys(t, kEffectKeys, "[effect]");
  if (auto n = t.get("name"))
    if (auto s = string(*n, "effect.name")) {
      if (const char* why = effect_name_problem(*s))
        error(*n, "effect.name " + quoted_excerpt(*s) + " " + why);
      else
        fx.name = *s;
    }
  if (auto n = t.get("seed"))
    if (auto v = integer(*n, "effect.seed", 0, 0xffffffffll)) fx.seed = static_cast<uint32_t>(*v);
  if (auto n = t.get("duration"))
    if (auto v = bounded(*n, "effect.duration", 0, 1e9, "seconds")) fx.duration_s = *v;
  if (auto n = t.get("fps"))
    if (auto v = bounded(*n, "effect.fps", 1e-3, kMaxFps)) fx.fps = *v;
  if (auto n = t.get("loop"))
    if (auto v = boolean(*n, "effect.loop")) fx.loop = *v;
  if (auto n = t.get("seamless"))
    if (auto v = boolean(*n, "effect.seamless")) fx.seamless = *v;
  if (auto n = t.get("start"))
    if (auto v = bounded(*n, "effect.start", -1e9, 1e9, "seconds")) fx.start_s = *v;
  if (auto n = t.get("time_scale"))
    if (auto v = bounded(*n, "effect.time_scale", -1e6, 1e6)) fx.time_scale = *v;
  if (fx.loop && fx.duration_s <= 0) {
    const toml::node* n = t.get("loop");
    error(*n, "effect.loop needs a positive effect.duration (the loop period)");
  }
}

void Translator::read_canvas(const toml::table& t, Canvas& canvas) {
  check_keys(t, kCanvasKeys, "[canvas]");
  if (auto n = t.get("size")) {
    const toml::array* a = n->as_array();
    if (!a || a->size() != 2) {
      error(*n, "canvas.size must be [width, height] in pixels");
    } else {
      auto w = integer((*a)[0], "canvas width", 1, kMaxCanvasSide);
      auto h = integer((*a)[1], "canvas height", 1, kMaxCanvasSide);
      if (w && h) {
        canvas.width = static_cast<int>(*w);
        canvas.height = static_cast<int>(*h);
      }
    }
  }
  if (auto n = t.get("background"))
    if (auto c = color(*n, "canvas.background")) canvas.background_srgb = *c;
  if (auto n = t.get("ambient"))
    if (auto c = opaque_color(*n, "canvas.ambient")) canvas.ambient_srgb = *c;
  if (auto n = t.get("tonemap"))
    if (auto i = choice(*n, "canvas.tonemap", words_of<Tonemap>()))
      canvas.tonemap = static_cast<Tonemap>(*i);
  if (auto n = t.get("alpha"))
    if (auto i = choice(*n, "canvas.alpha", words_of<AlphaMode>()))
      canvas.alpha = static_cast<AlphaMode>(*i);
  if (auto n = t.get("blend"))
    if (auto i = choice(*n, "canvas.blend", words_of<BlendSpace>()))
      canvas.blend = static_cast<BlendSpace>(*i);
  if (auto n = t.get("motion_blur")) read_motion_blur(*n, canvas);
}

void Translator::read_motion_blur(const toml::node& n, Canvas& canvas) {
  const toml::table* t =
      inline_table(n, kMotionBlurKeys, "canvas.motion_blur",
                   "canvas.motion_blur must be a table { samples = 8, shutter = 0.5 }");
  if (!t) return;
  // Present means on: 8 samples over half a frame interval unless given.
  canvas.blur_samples = 8;
  if (auto s = t->get("samples"))
    if (auto v = integer(*s, "canvas.motion_blur.samples", 1, kMaxBlurSamples))
      canvas.blur_samples = static_cast<int>(*v);
  if (auto s = t->get("shutter"))
    if (auto v = bounded(*s, "canvas.motion_blur.shutter", 0, 1, "frame intervals"))
      canvas.shutter = *v;
  if (canvas.shutter == 0 && canvas.blur_samples > 1)
    warnings.push_back(
        {loc(*t->get("shutter")), "canvas.motion_blur.shutter is 0: every frame is drawn " +
                                      std::to_string(canvas.blur_samples) +
                                      " times at the same time, with no blur"});
}

void Translator::read_check(const toml::table& t, CheckSpec& check) {
  check_keys(t, kCheckKeys, "[check]");
  if (auto n = t.get("times")) {
    check.times_loc = loc(*n);
    const toml::array* a = n->as_array();
    if (!a || a->empty()) {
      error(*n, "check.times must be a non-empty array of times in seconds");
    } else if (a->size() > kMaxCheckTimes) {
      error(*n, "check.times has " + std::to_string(a->size()) + " times, more than " +
                    std::to_string(kMaxCheckTimes) + " (each is a rendered frame)");
    } else {
      std::unordered_map<std::string, double> labels;
      for (const toml::node& x : *a) {
        auto v = bounded(x, "check time", -1e9, 1e9);
        if (!v) continue;
        const std::string label = check_time_label(*v);
        const auto [same, fresh] = labels.emplace(label, *v);
        if (!fresh) {
          char now_s[32], prev_s[32];
          std::snprintf(now_s, sizeof now_s, "%.9g", *v);
          std::snprintf(prev_s, sizeof prev_s, "%.9g", same->second);
          error(x, std::string("check time ") + now_s + " and " + prev_s +
                       " would share the golden " + label +
                       ".png (goldens are named by the millisecond); keep check times "
                       "at least 1 ms apart");
          continue;
        }
        check.times.push_back(*v);
      }
    }
  }
  if (auto n = t.get("threshold"))
    if (auto v = bounded(*n, "check.threshold", 0, 1)) check.threshold = *v;
  if (auto n = t.get("max_diff_pixels"))
    if (auto v = integer(*n, "check.max_diff_pixels", 0, std::numeric_limits<int64_t>::max(), {},
                         Bounds::kNonNegative))
      check.max_diff_pixels = *v;
  if (auto n = t.get("max_diff_ratio"))
    if (auto v = bounded(*n, "check.max_diff_ratio", 0, 1)) check.max_diff_ratio = *v;
  if (auto n = t.get("max_channel_diff"))
    if (auto v = integer(*n, "check.max_channel_diff", 0, 255, {}, Bounds::kDots))
      check.max_channel_diff = static_cast<int>(*v);
}

Effect Translator::translate(const toml::table& root) {
  Effect fx;
  check_keys(root, kRootKeys, "the effect file");
  if (auto t = table_at(root, "effect", "[effect]")) {
    fx.effect_loc = loc(*t);
    read_effect(*t, fx);
  }
  if (auto t = table_at(root, "canvas", "[canvas]")) read_canvas(*t, fx.canvas);
  if (auto t = table_at(root, "check", "[check]")) read_check(*t, fx.check);

  const toml::node* list = root.get("emitter");
  if (!list) {
    error_at({file_, 0, 0},
             root.empty() ? "the effect file is empty: an effect needs at least one [[emitter]]"
                          : "the effect has no [[emitter]] table");
  } else if (!list->is_array_of_tables()) {
    error(*list, "emitter must be written as [[emitter]] tables");
  } else {
    const toml::array& arr = *list->as_array();
    std::unordered_set<std::string> names;
    for (size_t i = 0; i < arr.size(); ++i) {
      Emitter em;
      em.index = static_cast<uint32_t>(i);
      em.name = "emitter" + std::to_string(i);
      read_emitter(*arr[i].as_table(), em);
      if (!names.insert(em.name).second) {
        const toml::node* n = arr[i].as_table()->get("name");
        error(n ? *n : arr[i], "emitter name \"" + em.name + "\" is used twice");
      }
      fx.emitters.push_back(std::move(em));
    }
    resolve_subs(fx);
    check_programs(fx);
    children_.clear();
    for (const Emitter& em : fx.emitters)
      if (em.sub.parent >= 0) children_.insert(static_cast<uint32_t>(em.sub.parent));
    for (size_t i = 0; i < fx.emitters.size(); ++i)
      warn_invisible(*arr[i].as_table(), fx.emitters[i]);
  }
  return fx;
}

}  // namespace spritz::toml_load
