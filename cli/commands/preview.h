// `spritz preview`: a local web page that plays an effect, scrubs to any
// time and reloads when the file changes (docs/cli.md, "spritz preview").
// The pieces here are the pure ones, tested without a server.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "command.h"

namespace spritz {

struct PreviewArgs {
  EffectArgs effect;
  int port = 0;  // 0: a free port
  bool open = false;
  int threads = 0;
  bool quiet = false;
};

Command add_preview_command(CLI::App& app, RunOptions& run);
int run_preview(const PreviewArgs& args, const RunSettings& settings);

// Whether a request's Host header names this server: 127.0.0.1, localhost
// or [::1] with its port, any case. Anything else (a DNS-rebinding page
// naming its own host) is refused.
bool preview_host_allowed(std::string_view host, int port);

// A frame request's parameters, checked: t (s, finite, within ±1e9), seed
// (0..4294967295), size (WxH, as render's --size) and fps (the motion-blur
// shutter's frame rate, as render's --fps). Throws spritz::Error with a
// message for the page.
struct PreviewQuery {
  double time = 0;
  std::optional<int64_t> seed;
  std::string size;
  std::optional<double> fps;
};
PreviewQuery parse_preview_query(const std::multimap<std::string, std::string>& params);

// The page itself (cli/commands/preview_page.cpp).
extern const char kPreviewPage[];

}  // namespace spritz
