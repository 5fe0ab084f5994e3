#include "commands/check_report.h"

#include <filesystem>
#include <string>

#include "io/io.h"
#include "spritz/version.h"

namespace spritz {

std::string markup_escape(const std::string& s) {
  std::string out;
  for (const char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        // XML 1.0 has no other control characters than tab, CR and LF.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r')
          out += ' ';
        else
          out += c;
    }
  }
  return out;
}

namespace {

namespace fs = std::filesystem;

// A file name for a check's images: its effect and time, nothing else.
std::string image_stem(const CheckRecord& r) {
  std::string s = r.name;
  for (char& c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-')) c = '_';
  return s;
}

// Copies `from` into the report's img/ as `name`; the relative path, or ""
// when there is nothing to copy.
std::string copy_in(const fs::path& dir, const std::string& from, const std::string& name) {
  std::error_code ec;
  if (from.empty() || !fs::is_regular_file(from, ec)) return "";
  fs::copy_file(from, dir / "img" / name, fs::copy_options::overwrite_existing, ec);
  if (ec) throw Error("cannot copy " + from + " into the report: " + ec.message());
  return "img/" + name;
}

const char* kStyle = R"(<style>
[hidden]{display:none!important}
body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;background:#fafafa}
h1{font-size:20px}h2{font-size:16px;margin-top:28px}
.fail{background:#fff;border:1px solid #e0b4b4;border-left:6px solid #c0392b;padding:12px;margin:12px 0}
.meta{color:#555}.fig{font-family:ui-monospace,monospace}
.tabs button{margin-right:4px}.tabs button.on{font-weight:bold}
.view{margin-top:8px}.view img{image-rendering:pixelated;background:repeating-conic-gradient(#ccc 0 25%,#fff 0 50%) 0 0/16px 16px;min-width:128px}
.side{display:flex;gap:8px}.side figure{margin:0}.side figcaption{color:#555}
.slider{position:relative;display:inline-block}.slider img{display:block}
.slider .top{position:absolute;left:0;top:0;clip-path:inset(0 50% 0 0)}
</style>)";

const char* kScript = R"(<script>
function show(id,which){for(const v of document.querySelectorAll('[data-check="'+id+'"] .view'))v.hidden=v.dataset.view!==which;
for(const b of document.querySelectorAll('[data-check="'+id+'"] .tabs button'))b.classList.toggle('on',b.dataset.view===which);}
function slide(id,v){document.querySelector('[data-check="'+id+'"] .slider .top').style.clipPath='inset(0 '+(100-v)+'% 0 0)';}
</script>)";

std::string failure_section(const fs::path& dir, const CheckRecord& r, size_t id) {
  const std::string stem = image_stem(r), n = std::to_string(id);
  const std::string expected = copy_in(dir, r.golden, stem + ".expected.png");
  const std::string actual = copy_in(dir, r.actual, stem + ".actual.png");
  const std::string diff = copy_in(dir, r.diff, stem + ".diff.png");
  std::string h = "<section class=\"fail\" data-check=\"" + n + "\" data-status=\"" +
                  markup_escape(r.status) + "\">\n<h3>" + markup_escape(r.name) + " <small>(" +
                  markup_escape(r.status) + ")</small></h3>\n";
  h += "<p class=\"fig\">" + markup_escape(r.detail) + "</p>\n<p class=\"meta\">" +
       markup_escape(r.where.file) + ":" + std::to_string(r.where.line) + ":" +
       std::to_string(r.where.col) +
       (r.tolerance.empty() ? "" : " &middot; tolerances: " + markup_escape(r.tolerance)) +
       "</p>\n";
  if (expected.empty() && actual.empty()) return h + "</section>\n";
  const std::pair<const char*, std::string> images[] = {
      {"expected", expected}, {"actual", actual}, {"diff", diff}};
  h += "<div class=\"tabs\">";
  for (const auto& [what, src] : images)
    if (!src.empty())
      h += "<button data-view=\"" + std::string(what) + "\" onclick=\"show(" + n + ",'" + what +
           "')\">" + what + "</button>";
  h += "<button data-view=\"side\" onclick=\"show(" + n + ",'side')\">side by side</button>";
  if (!expected.empty() && !actual.empty())
    h += "<button data-view=\"slider\" onclick=\"show(" + n + ",'slider')\">slider</button>";
  h += "</div>\n";
  bool first = true;
  for (const auto& [what, src] : images) {
    if (src.empty()) continue;
    h += "<div class=\"view\" data-view=\"" + std::string(what) + "\"" + (first ? "" : " hidden") +
         "><img src=\"" + src + "\" alt=\"" + what + "\"></div>\n";
    first = false;
  }
  h += "<div class=\"view side\" data-view=\"side\" hidden>";
  for (const auto& [what, src] : images)
    if (!src.empty())
      h += "<figure><img src=\"" + src + "\" alt=\"" + what + "\"><figcaption>" + what +
           "</figcaption></figure>";
  h += "</div>\n";
  if (!expected.empty() && !actual.empty())
    h += "<div class=\"view\" data-view=\"slider\" hidden><div class=\"slider\"><img src=\"" +
         expected + "\" alt=\"expected\"><img class=\"top\" src=\"" + actual +
         "\" alt=\"actual\"></div><br><input type=\"range\" min=\"0\" max=\"100\" value=\"50\" "
         "oninput=\"slide(" +
         n + ",this.value)\"> expected | actual</div>\n";
  return h + "</section>\n";
}

}  // namespace

void write_check_report(const std::string& dir_name, const std::vector<CheckRecord>& records,
                        const std::vector<std::string>& stale) {
  const fs::path dir = dir_name;
  std::error_code ec;
  fs::create_directories(dir / "img", ec);
  if (ec)
    throw Error("cannot create the report folder " + (dir / "img").string() + ": " + ec.message());
  size_t failed = 0, missing = 0;
  for (const CheckRecord& r : records) failed += !r.ok, missing += r.status == "missing";
  std::string h =
      "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>spritz "
      "check: " +
      std::to_string(failed) + " failed</title>\n" + kStyle + kScript +
      "</head><body>\n<h1>spritz check</h1>\n<p id=\"summary\">" + std::to_string(records.size()) +
      " checks, " + std::to_string(failed) + " failed, " + std::to_string(stale.size()) +
      " stale goldens &middot; spritz " + SPRITZ_VERSION + "</p>\n<h2>Failures</h2>\n";
  size_t id = 0;
  for (const CheckRecord& r : records)
    if (!r.ok && r.status != "stale" && r.status != "missing") h += failure_section(dir, r, id++);
  if (failed == 0) h += "<p>None.</p>\n";
  h += "<h2>Missing goldens</h2>\n<ul id=\"missing\">\n";
  for (const CheckRecord& r : records)
    if (r.status == "missing")
      h += "<li>" + markup_escape(r.name) + ": " + markup_escape(r.golden) + "</li>\n";
  h += "</ul>\n<h2>Stale goldens</h2>\n<p class=\"meta\">Goldens that no check time uses.</p>\n"
       "<ul id=\"stale\">\n";
  for (const std::string& g : stale) h += "<li>" + markup_escape(g) + "</li>\n";
  h += "</ul>\n<details id=\"passed\"><summary>Passed (" + std::to_string(records.size() - failed) +
       ")</summary>\n<ul>\n";
  for (const CheckRecord& r : records)
    if (r.ok) h += "<li>" + markup_escape(r.name) + ": " + markup_escape(r.detail) + "</li>\n";
  h += "</ul>\n</details>\n</body></html>\n";
  write_file_atomic((dir / "index.html").string(), h.data(), h.size());
}

}  // namespace spritz
