// spritz preview: an HTTP server (http_server.h) serving one page and the frames it asks for,
// rendered on demand by render's own code, on 127.0.0.1 only; a watcher
// thread reloads the effect when its file or a texture file changes.
#include "commands/preview.h"

#include <pthread.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "commands/preview.h"
#include "commands/render_job.h"
#include "frames.h"
#include "http_server.h"
#include "json.h"
#include "spritz/error.h"
#include "spritz/eval.h"
#include "spritz/raster/frame.h"

extern char** environ;

namespace spritz {

bool preview_host_allowed(std::string_view host, int port) {
  std::string h(host);
  for (char& c : h) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const std::string p = ":" + std::to_string(port);
  for (const char* name : {"127.0.0.1", "localhost", "[::1]"}) {
    if (h == name + p) return true;
    if (port == 80 && h == name) return true;  // browsers leave out the default port
  }
  return false;
}

namespace {

bool parse_number(const std::string& text, double& out) {
  if (text.empty() || text.size() > 64) return false;
  char* end = nullptr;
  errno = 0;
  out = std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size() && errno == 0 && std::isfinite(out);
}

}  // namespace

PreviewQuery parse_preview_query(const std::multimap<std::string, std::string>& params) {
  PreviewQuery q;
  for (auto it = params.begin(); it != params.end(); ++it) {
    const std::string& key = it->first;
    if (key != "t" && key != "seed" && key != "size" && key != "fps" && key != "v")
      throw Error("unknown parameter '" + key.substr(0, 32) + "'");
    if (params.count(key) > 1) throw Error("parameter '" + key + "' given twice");
    const std::string& value = it->second;
    if (key == "t") {
      // render --time's grammar, one value: the frame is the one it writes.
      std::vector<double> times;
      try {
        times = parse_times({value});
      } catch (const Error&) {
      }
      if (times.size() != 1) throw Error("t must be a finite time in seconds within ±1e9");
      q.time = times[0];
    } else if (key == "seed") {
      if (value.empty() || value.size() > 10 ||
          value.find_first_not_of("0123456789") != std::string::npos ||
          std::stoll(value) > 0xffffffffll)
        throw Error("seed must be an integer within [0, 4294967295]");
      q.seed = std::stoll(value);
    } else if (key == "size") {
      if (value.size() > 16 || value.find_first_not_of("0123456789x") != std::string::npos)
        throw Error("size must be WxH, e.g. 256x256");
      q.size = value;
    } else if (key == "fps") {
      double fps;
      if (!parse_number(value, fps) || !(fps > 0) || fps > 10000)
        throw Error("fps must be within (0, 10000]");
      q.fps = fps;
    }
  }
  return q;
}

namespace {

// A frame larger than this is refused (4096x4096: 256 MB of float pixels).
constexpr int64_t kMaxPreviewPixels = 4096 * 4096;

struct FileStamp {
  std::string path;
  bool exists = false;
  int64_t mtime_ns = 0, size = 0;
  bool operator==(const FileStamp& o) const {
    return path == o.path && exists == o.exists && mtime_ns == o.mtime_ns && size == o.size;
  }
};

FileStamp stamp(const std::string& path) {
  FileStamp s;
  s.path = path;
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    s.exists = true;
    s.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
    s.size = static_cast<int64_t>(st.st_size);
  }
  return s;
}

// The effect being previewed: the last version that loaded, the messages of
// the current file when it does not, and the files to watch.
class Preview {
 public:
  Preview(const PreviewArgs& args, const RunSettings& settings) : args_(args), files_(settings) {
    reload();
  }

  // Reloads when the effect file or a texture file changed; true if it did.
  // Called every 100 ms by the watcher thread.
  bool poll() {
    const auto stamps = [this] {
      std::vector<FileStamp> now;
      std::lock_guard<std::mutex> lock(mutex_);
      for (const FileStamp& s : watched_) now.push_back(stamp(s.path));
      return std::make_pair(now, now == watched_);
    };
    auto [now, same] = stamps();
    if (same) return false;
    // An editor (or a script) may be halfway through writing: wait until
    // the files have stayed the same for 50 ms (at most a second) before
    // reading them, so a half-written file is not reported as broken.
    for (int i = 0; i < 20; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      auto next = stamps().first;
      if (next == now) break;
      now = std::move(next);
    }
    reload();
    return true;
  }

  std::string state_json() {
    std::lock_guard<std::mutex> lock(mutex_);
    std::string j = "{\"version\":" + std::to_string(version_) +
                    ",\"file\":" + json_string(args_.effect.effect) + ",\"errors\":[";
    for (size_t i = 0; i < errors_.size(); ++i) j += (i ? "," : "") + json_string(errors_[i]);
    j += "]";
    if (effect_) {
      const Effect& fx = *effect_;
      j += ",\"name\":" + json_string(fx.name) + ",\"fps\":" + json_number(fx.fps) +
           ",\"duration\":" + json_number(fx.duration_s) +
           ",\"loop\":" + (fx.loop ? "true" : "false") + ",\"canvas\":[" +
           std::to_string(fx.canvas.width) + "," + std::to_string(fx.canvas.height) +
           "],\"seed\":" + std::to_string(fx.seed) + ",\"emitters\":[";
      for (size_t i = 0; i < fx.emitters.size(); ++i)
        j += (i ? "," : "") + json_string(fx.emitters[i].name);
      j += "]";
    }
    return j + "}";
  }

  // The PNG `render --time T` writes for this query, byte for byte.
  std::vector<uint8_t> frame(const PreviewQuery& q) {
    const std::shared_ptr<const Effect> fx = effect_for(q.seed);
    RenderArgs ra;
    ra.size = q.size;
    ra.fps = q.fps;
    ra.times = {q.time};
    ra.threads = args_.threads;
    const RenderJob job = make_render_job(parse_render_request(ra), *fx, "preview.png");
    if (static_cast<int64_t>(job.width) * job.height > kMaxPreviewPixels)
      throw Error("size " + std::to_string(job.width) + "x" + std::to_string(job.height) +
                  " is over the preview's 4096x4096 pixels; render it with spritz render");
    const RenderItem item = job.item(*fx, 0);
    const View view = canvas_view(fx->canvas, job.width, job.height);
    const std::unique_ptr<FrameRenderer> renderer =
        make_renderer(*fx, job.width, job.height, job.plan.raster_threads, view,
                      textures_for(fx, view.scale), files_.settings());
    FrameRenderer& r = *renderer;
    r.set_frame_rate(job.fps);
    std::vector<std::vector<uint8_t>> parts;
    render_frame_png(r, *fx, item, parts);
    return join_png_parts(std::move(parts));
  }

  // Particles alive per emitter at the query's time (trail ghosts not counted).
  std::string counts_json(const PreviewQuery& q) {
    const std::shared_ptr<const Effect> fx = effect_for(q.seed);
    Frame frame;
    frame.particle_limit = frame_particle_limit(*fx, files_.settings());
    const double clock = clock_at_time(*fx, q.time);
    check_frame_work(*fx, clock, {clock}, files_.settings().work_limit, kWorkLimitHint);
    evaluate(*fx, clock, frame);
    std::string j = "{\"t\":" + json_number(q.time) + ",\"emitters\":[";
    for (size_t i = 0; i < frame.emitters.size(); ++i) {
      const EmitterFrame& ef = frame.emitters[i];
      j += std::string(i ? "," : "") + "{\"name\":" + json_string(fx->emitters[ef.emitter].name) +
           ",\"alive\":" + std::to_string(ef.stats.alive) + "}";
    }
    return j + "]}";
  }

 private:
  void reload() {
    files_.forget_imports();  // a change may be to an imported effect's texture file
    std::vector<FileStamp> files{stamp(args_.effect.effect)};
    std::shared_ptr<const Effect> loaded;
    std::vector<std::string> errors;
    try {
      loaded = std::make_shared<const Effect>(files_.load(args_.effect));
      for (const Emitter& em : loaded->emitters)
        if (!em.texture.builtin()) files.push_back(stamp(em.texture.path));
      for (const std::string& f : loaded->source_files) files.push_back(stamp(f));
    } catch (const Error& e) {
      errors.push_back(e.what());
      // A program file with an error is watched too, so that saving the fix
      // reloads (its messages name it).
      for (const Diagnostic& d : e.diagnostics())
        if (!d.loc.file.empty() && d.loc.file != args_.effect.effect &&
            std::none_of(files.begin(), files.end(),
                         [&](const FileStamp& f) { return f.path == d.loc.file; }))
          files.push_back(stamp(d.loc.file));
    } catch (const std::exception& e) {
      errors.push_back(e.what());
    }
    std::lock_guard<std::mutex> lock(mutex_);
    // A texture that no longer loads keeps the old files watched too.
    if (!loaded && effect_) {
      for (const Emitter& em : effect_->emitters)
        if (!em.texture.builtin()) files.push_back(stamp(em.texture.path));
      for (const std::string& f : effect_->source_files) files.push_back(stamp(f));
    }
    watched_ = files;
    errors_ = errors;
    if (loaded) {
      effect_ = loaded;
      seeded_.clear();
      textures_.clear();
      files_
          .forget_texture_files();  // read again: one may be what changed (textures_for locks too)
    }
    ++version_;
    if (!args_.quiet) {
      if (loaded && version_ > 1)
        std::fprintf(stderr, "spritz: reloaded %s\n", args_.effect.effect.c_str());
      for (const std::string& e : errors_) std::fprintf(stderr, "spritz: %s\n", e.c_str());
    }
  }

  std::shared_ptr<const Effect> effect_for(const std::optional<int64_t>& seed) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!effect_) throw Error("the effect has not loaded yet: " + errors_.front());
    if (!seed || *seed == effect_->seed) return effect_;
    auto it = seeded_.find(*seed);
    if (it != seeded_.end()) return it->second;
    // Another seed: the file as last loaded would give it, so load it again
    // (the seed reaches every emitter's stream when the effect loads).
    EffectArgs ea = args_.effect;
    ea.seed = *seed;
    const auto fx = std::make_shared<const Effect>(files_.load(ea));
    if (seeded_.size() > 64) seeded_.clear();
    return seeded_[*seed] = fx;
  }

  TextureSet textures_for(const std::shared_ptr<const Effect>& fx, double scale) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto key = std::make_pair(fx.get(), scale);
    auto it = textures_.find(key);
    if (it != textures_.end()) return it->second;
    if (textures_.size() > 32) textures_.clear();
    return textures_[key] = files_.textures(*fx, scale);
  }

  const PreviewArgs& args_;
  EffectFiles files_;
  std::mutex mutex_;
  std::shared_ptr<const Effect> effect_;
  std::map<int64_t, std::shared_ptr<const Effect>> seeded_;
  std::map<std::pair<const Effect*, double>, TextureSet> textures_;
  std::vector<std::string> errors_;
  std::vector<FileStamp> watched_;
  uint64_t version_ = 0;
};

void send_error(HttpResponse& res, int status, const std::string& message) {
  res.status = status;
  res.body = "{\"error\":" + json_string(message) + "}\n";
  res.content_type = "application/json";
}

// Starts the desktop's browser on `url` (`browser`, the run's $BROWSER, or
// xdg-open), detached.
void open_browser(const std::string& browser, const std::string& url, bool quiet) {
  const std::string prog = !browser.empty() ? browser : "xdg-open";
  char* argv[] = {const_cast<char*>(prog.c_str()), const_cast<char*>(url.c_str()), nullptr};
  pid_t pid;
  if (posix_spawnp(&pid, prog.c_str(), nullptr, nullptr, argv, environ) != 0) {
    if (!quiet)
      std::fprintf(stderr, "spritz: could not start %s; open %s yourself\n", prog.c_str(),
                   url.c_str());
    return;
  }
  std::thread([pid] { waitpid(pid, nullptr, 0); }).detach();
}

// Answers one request: the page, the effect's state, a frame or its counts.
void answer(Preview& preview, int port, const HttpRequest& req, HttpResponse& res) {
  // DNS rebinding: a page on another name that resolves to 127.0.0.1
  // sends its own name as Host.
  if (!preview_host_allowed(req.host, port)) {
    send_error(res, 403, "this preview answers only to 127.0.0.1:" + std::to_string(port));
    return;
  }
  if (req.method != "GET" && req.method != "HEAD") {
    send_error(res, 405, "the preview only serves GET requests");
    return;
  }
  res.headers = {{"X-Content-Type-Options", "nosniff"}, {"Cache-Control", "no-store"}};
  try {
    if (req.path == "/") {
      res.headers.emplace_back("Content-Security-Policy",
                               "default-src 'none'; img-src 'self' blob:; connect-src 'self'; "
                               "style-src 'unsafe-inline'; script-src 'unsafe-inline'");
      res.body = kPreviewPage;
      res.content_type = "text/html; charset=utf-8";
    } else if (req.path == "/state") {
      res.body = preview.state_json();
      res.content_type = "application/json";
    } else if (req.path == "/frame.png") {
      const std::vector<uint8_t> png = preview.frame(parse_preview_query(req.params));
      res.body.assign(png.begin(), png.end());
      res.content_type = "image/png";
    } else if (req.path == "/counts") {
      res.body = preview.counts_json(parse_preview_query(req.params));
      res.content_type = "application/json";
    } else {
      send_error(res, 404, "not found: the preview serves /, /state, /frame.png and /counts");
    }
  } catch (const std::exception& e) {
    send_error(res, 400, e.what());
  }
}

}  // namespace

int run_preview(const PreviewArgs& args, const RunSettings& settings) {
  if (args.effect.effect.empty() || args.effect.effect == "-")
    throw Error("preview watches a file: give the effect's path (not stdin)");
  if (args.port < 0 || args.port > 65535) throw Error("--port must be within [0, 65535]");
  // Ctrl-C and SIGTERM are taken by a thread of their own (sigwait), which
  // stops the server: every thread started from here on blocks them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGHUP);
  sigaddset(&stop_signals, SIGUSR2);  // how this function wakes the thread itself
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  Preview preview(args, settings);
  int port = args.port;
  const std::unique_ptr<HttpServer> svr =
      make_http_server([&preview, &port](const HttpRequest& req,
                                         HttpResponse& res) { answer(preview, port, req, res); },
                       {}, settings.module_dir);
  port = svr->bind("127.0.0.1", args.port);
  if (port < 0 && args.port == 0) throw Error("cannot listen on 127.0.0.1: no free port");
  if (port < 0)
    throw Error("cannot listen on 127.0.0.1:" + std::to_string(args.port) + ": " +
                std::strerror(errno) + " (is another preview running there? --port 0 picks one)");
  const std::string url = "http://127.0.0.1:" + std::to_string(port) + "/";
  std::printf("%s\n", url.c_str());
  std::fflush(stdout);
  if (!args.quiet)
    std::fprintf(stderr, "spritz: previewing %s at %s (Ctrl-C stops)\n", args.effect.effect.c_str(),
                 url.c_str());
  if (args.open) open_browser(settings.browser, url, args.quiet);

  std::atomic<bool> done{false};
  std::thread watcher([&] {
    while (!done) {
      preview.poll();
      for (int i = 0; i < 2 && !done; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  });
  std::thread stopper([&] {
    int sig = 0;
    sigwait(&stop_signals, &sig);
    if (sig != SIGUSR2) svr->stop();  // SIGUSR2: woken to end, the server has stopped
  });
  const bool ok = svr->listen();
  done = true;
  watcher.join();
  // Wake the signal thread (a no-op for it when a signal already ended it:
  // a pending SIGUSR2 stays blocked and this process exits).
  pthread_kill(stopper.native_handle(), SIGUSR2);
  stopper.join();
  if (!args.quiet) std::fprintf(stderr, "spritz: preview stopped\n");
  return ok ? kExitOk : kExitError;
}

}  // namespace spritz

namespace spritz {

Command add_preview_command(CLI::App& app, RunOptions& run) {
  auto args = std::make_shared<PreviewArgs>();
  PreviewArgs& a = *args;
  CLI::App* pv = app.add_subcommand(
      "preview", "Play an effect in the browser, scrub to any time, reload on every save");
  pv->add_option("effect", a.effect.effect, "Effect file (TOML), watched for changes")->required();
  pv->add_option("--port", a.port, "Port on 127.0.0.1 (default 0: a free one)")
      ->check(CLI::Range(0, 65535));
  pv->add_flag("--open", a.open, "Open the page in the desktop's browser (xdg-open)");
  pv->add_option("--threads", a.threads, "Threads per frame (output is identical)")
      ->check(CLI::Range(1, 1024));
  pv->add_flag("-q,--quiet", a.quiet, "Print only the address and errors");
  add_effect_options(pv, a.effect, run);
  pv->footer(
      "Examples:\n  spritz preview configs/torch.toml --open\n"
      "  spritz preview fx.toml --port 8731 --set emitter.0.rate=200\n"
      "Serves 127.0.0.1 only; prints the address on stdout. Ctrl-C stops it.");
  const SettingsUse use{/*kernel=*/true, /*memory=*/true, /*work=*/true, /*textures=*/true};
  return {pv, use, [args](const RunSettings& settings) { return run_preview(*args, settings); }};
}

}  // namespace spritz
