// parse_render_request and make_render_job are the pure steps of `render`:
// options and an effect into what to render, with no file touched, so they
// are tested without any.
#include "commands/render_job.h"

#include <catch2/catch.hpp>

#include "spritz/eval.h"
#include "spritz/load.h"

using namespace spritz;

namespace {

Effect effect(const std::string& extra = "") {
  return load_effect("[effect]\nduration = 2\nfps = 30\n" + extra +
                         "[canvas]\nsize = [200, 100]\n[[emitter]]\nrate = 10\n",
                     "job.toml", ".");
}

// The request parsed from `args`, then the job for `fx`: the two steps
// `render` takes.
RenderJob make_render_job(const RenderArgs& args, const Effect& fx, const std::string& output) {
  return spritz::make_render_job(parse_render_request(args), fx, output);
}

}  // namespace

TEST_CASE("a render job: size, fps, the default frame list and the output", "[render_job]") {
  RenderArgs args;
  const RenderJob job = make_render_job(args, effect(), "out/f_####.png");
  CHECK(job.width == 200);
  CHECK(job.height == 100);
  CHECK(job.fps == 30);
  CHECK(!job.by_time);
  CHECK(job.total == 60);  // [0, duration * fps)
  CHECK(job.begin == 0);
  CHECK(job.end == 60);
  CHECK(!job.raw);
  CHECK(!job.hdr);
  CHECK(job.pattern.format(7) == "out/f_0007.png");
  const Effect fx = effect();
  CHECK(job.item(fx, 7).clock == clock_at_frame(fx, 7, 30));
}

TEST_CASE("a render job: --scale, --size, --time, chunks, .hdr and stdout", "[render_job]") {
  RenderArgs args;
  args.scale = 1.5;
  CHECK(make_render_job(args, effect(), "a_#.png").width == 300);
  args.scale.reset();
  args.size = "64x32";
  args.frames = "0-99";
  args.chunk_index = 1;
  args.chunk_count = 3;
  const RenderJob chunk = make_render_job(args, effect(), "a_###.hdr");
  CHECK(chunk.width == 64);
  CHECK(chunk.total == 100);
  CHECK(chunk.begin == 33);  // floor(100 i / 3): contiguous slices
  CHECK(chunk.end == 66);
  CHECK(chunk.hdr);
  RenderArgs at;
  at.times = {0.5, 1.25};
  const RenderJob times = make_render_job(at, effect(), "-");
  CHECK(times.raw);
  CHECK(times.by_time);
  CHECK(times.total == 2);
  CHECK(times.item(effect(), 1).time == 1.25);
}

TEST_CASE("a render job refuses bad combinations before anything is drawn", "[render_job]") {
  const auto refuses = [](RenderArgs args, const std::string& output, const std::string& message) {
    INFO(message);
    CHECK_THROWS_WITH(make_render_job(args, effect(), output), Catch::Contains(message));
  };
  RenderArgs both;
  both.size = "10x10";
  both.scale = 2;
  refuses(both, "a.png", "use either --size or --scale, not both");
  RenderArgs one_file;
  refuses(one_file, "single.png", "names one file but 60 frames are requested");
  RenderArgs fps;
  fps.fps = 0;
  refuses(fps, "a_#.png", "--fps must be within (0, 10000]");
  RenderArgs chunk;
  chunk.chunk_index = 3;
  chunk.chunk_count = 3;
  refuses(chunk, "a_#.png", "--chunk-index must be within [0, 2]");
  RenderArgs lone;
  lone.chunk_count = 2;
  refuses(lone, "a_#.png", "--chunk-index and --chunk-count go together");
  RenderArgs jpg;
  refuses(jpg, "a_#.jpg", ".jpg");
}
