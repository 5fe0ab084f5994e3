#include "texture.h"

#include <dlfcn.h>
#include <tiffio.h>
#include <zlib.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <memory>
#include <type_traits>
#include <utility>

#include "spritz/import/import.h"
#include "spritz/raster/png.h"

namespace spritz::import_detail {

namespace {

bool is_png(const std::vector<uint8_t>& b) {
  static const uint8_t sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  return b.size() >= 8 && std::memcmp(b.data(), sig, 8) == 0;
}

bool is_tiff(const std::vector<uint8_t>& b) {
  return b.size() >= 4 && ((b[0] == 'I' && b[1] == 'I' && b[2] == 42 && b[3] == 0) ||
                           (b[0] == 'M' && b[1] == 'M' && b[2] == 0 && b[3] == 42));
}

std::string mib(size_t bytes) {
  return std::to_string(bytes >> 20) + " MiB";
}

// libtiff reads from memory through these.
struct TiffSource {
  const std::vector<uint8_t>* bytes = nullptr;
  toff_t pos = 0;
  std::string error;
};

tmsize_t tiff_read(thandle_t h, void* buf, tmsize_t n) {
  auto* s = static_cast<TiffSource*>(h);
  const toff_t size = s->bytes->size();
  if (n < 0 || s->pos >= size) return 0;
  const auto k = static_cast<tmsize_t>(std::min<toff_t>(static_cast<toff_t>(n), size - s->pos));
  std::memcpy(buf, s->bytes->data() + s->pos, static_cast<size_t>(k));
  s->pos += static_cast<toff_t>(k);
  return k;
}
tmsize_t tiff_write(thandle_t, void*, tmsize_t) {
  return 0;
}
toff_t tiff_seek(thandle_t h, toff_t off, int whence) {
  auto* s = static_cast<TiffSource*>(h);
  const toff_t size = s->bytes->size();
  toff_t base = whence == SEEK_CUR ? s->pos : whence == SEEK_END ? size : 0;
  // An offset past the end is allowed (reads there return nothing); one
  // that wraps is not.
  if (off > (~static_cast<toff_t>(0)) - base) return static_cast<toff_t>(-1);
  s->pos = base + off;
  return s->pos;
}
int tiff_close(thandle_t) {
  return 0;
}
toff_t tiff_size(thandle_t h) {
  return static_cast<TiffSource*>(h)->bytes->size();
}
int tiff_map(thandle_t, void**, toff_t*) {
  return 0;
}
void tiff_unmap(thandle_t, void*, toff_t) {}

int tiff_error(TIFF*, void* user, const char* module, const char* fmt, va_list ap) {
  auto* s = static_cast<TiffSource*>(user);
  if (s->error.empty()) {
    char buf[256];
    std::vsnprintf(buf, sizeof buf, fmt, ap);
    s->error = printable(std::string(module ? module : "libtiff") + ": " + buf);
  }
  return 1;  // handled: libtiff prints nothing
}
int tiff_warning(TIFF*, void*, const char*, const char*, va_list) {
  return 1;  // ignored
}

// libtiff, opened on the first TIFF texture (dlopen) rather than linked:
// linking it made every run load it and the six codec libraries it pulls in,
// for the few imports that embed a TIFF (docs/performance.md, "Start-up").
// SPRITZ_LIBTIFF is its soname, read from the library at configure time.
struct Libtiff {
  decltype(&TIFFOpenOptionsAlloc) options_alloc;
  decltype(&TIFFOpenOptionsFree) options_free;
  decltype(&TIFFOpenOptionsSetMaxSingleMemAlloc) set_max_alloc;
  decltype(&TIFFOpenOptionsSetErrorHandlerExtR) set_error_handler;
  decltype(&TIFFOpenOptionsSetWarningHandlerExtR) set_warning_handler;
  decltype(&TIFFClientOpenExt) client_open;
  decltype(&TIFFClose) close;
  decltype(&TIFFGetField) get_field;
  decltype(&TIFFRGBAImageOK) rgba_ok;
  decltype(&TIFFReadRGBAImageOriented) read_rgba;
};

// The functions, or an Error saying why libtiff could not be had.
const Libtiff& libtiff(const SourceLoc& at, const std::string& what) {
  static const std::pair<Libtiff, std::string> lib = [] {
    std::pair<Libtiff, std::string> r{};
    void* h = dlopen(SPRITZ_LIBTIFF, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      const char* why = dlerror();
      r.second = std::string(why ? why : SPRITZ_LIBTIFF " could not be loaded");
      return r;
    }
    const auto get = [&](auto& fn, const char* name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(h, name));
      if (!fn && r.second.empty()) r.second = std::string(SPRITZ_LIBTIFF " has no ") + name;
    };
    Libtiff& t = r.first;
    get(t.options_alloc, "TIFFOpenOptionsAlloc");
    get(t.options_free, "TIFFOpenOptionsFree");
    get(t.set_max_alloc, "TIFFOpenOptionsSetMaxSingleMemAlloc");
    get(t.set_error_handler, "TIFFOpenOptionsSetErrorHandlerExtR");
    get(t.set_warning_handler, "TIFFOpenOptionsSetWarningHandlerExtR");
    get(t.client_open, "TIFFClientOpenExt");
    get(t.close, "TIFFClose");
    get(t.get_field, "TIFFGetField");
    get(t.rgba_ok, "TIFFRGBAImageOK");
    get(t.read_rgba, "TIFFReadRGBAImageOriented");
    return r;
  }();
  if (!lib.second.empty())
    throw Error(at, "cannot decode " + what + " (TIFF): libtiff is needed (Debian's " +
                        SPRITZ_LIBTIFF_PACKAGE + "): " + lib.second);
  return lib.first;
}

Rgba8Image decode_tiff(const std::vector<uint8_t>& bytes, const std::string& what,
                       const SourceLoc& at) {
  const Libtiff& lib = libtiff(at, what);
  TiffSource src;
  src.bytes = &bytes;
  std::unique_ptr<TIFFOpenOptions, void (*)(TIFFOpenOptions*)> opts(lib.options_alloc(),
                                                                    lib.options_free);
  lib.set_max_alloc(opts.get(), 256 << 20);
  lib.set_error_handler(opts.get(), tiff_error, &src);
  lib.set_warning_handler(opts.get(), tiff_warning, &src);
  std::unique_ptr<TIFF, void (*)(TIFF*)> tif(
      lib.client_open("texture", "rm", &src, tiff_read, tiff_write, tiff_seek, tiff_close,
                      tiff_size, tiff_map, tiff_unmap, opts.get()),
      lib.close);
  const auto fail = [&](const std::string& why) {
    return Error(at, "cannot decode " + what + " (TIFF): " + (src.error.empty() ? why : src.error));
  };
  if (!tif) throw fail("libtiff could not open it");
  uint32_t w = 0, h = 0;
  if (!lib.get_field(tif.get(), TIFFTAG_IMAGEWIDTH, &w) ||
      !lib.get_field(tif.get(), TIFFTAG_IMAGELENGTH, &h) || w == 0 || h == 0)
    throw fail("it has no image size");
  if (w > kMaxImportTextureSide || h > kMaxImportTextureSide)
    throw Error(at, what + " is " + std::to_string(w) + "x" + std::to_string(h) +
                        ", larger than the importer's limit of " +
                        std::to_string(kMaxImportTextureSide) + " per side");
  char emsg[1024] = "";
  if (!lib.rgba_ok(tif.get(), emsg)) throw fail(printable(emsg));
  std::vector<uint32_t> raster(static_cast<size_t>(w) * h);
  if (!lib.read_rgba(tif.get(), w, h, raster.data(), ORIENTATION_TOPLEFT, 0))
    throw fail("libtiff could not read its pixels");
  Rgba8Image img;
  img.width = static_cast<int>(w);
  img.height = static_cast<int>(h);
  img.rgba.resize(raster.size() * 4);
  for (size_t i = 0; i < raster.size(); ++i) {
    const uint32_t p = raster[i];
    const uint32_t a = TIFFGetA(p);
    uint32_t c[3] = {TIFFGetR(p), TIFFGetG(p), TIFFGetB(p)};
    // libtiff's RGBA reader premultiplies (unassociated alpha is multiplied
    // in); spritz's textures are straight.
    for (uint32_t& v : c) v = a == 0 ? 0 : std::min<uint32_t>(255, (v * 255 + a / 2) / a);
    img.rgba[4 * i + 0] = static_cast<uint8_t>(c[0]);
    img.rgba[4 * i + 1] = static_cast<uint8_t>(c[1]);
    img.rgba[4 * i + 2] = static_cast<uint8_t>(c[2]);
    img.rgba[4 * i + 3] = static_cast<uint8_t>(a);
  }
  return img;
}

}  // namespace

std::vector<uint8_t> decode_base64(std::string_view text, const SourceLoc& at) {
  std::vector<uint8_t> out;
  out.reserve(text.size() / 4 * 3);
  uint32_t acc = 0;
  int bits = 0, pad = 0;
  size_t symbols = 0;
  for (char ch : text) {
    int v;
    if (ch >= 'A' && ch <= 'Z') {
      v = ch - 'A';
    } else if (ch >= 'a' && ch <= 'z') {
      v = ch - 'a' + 26;
    } else if (ch >= '0' && ch <= '9') {
      v = ch - '0' + 52;
    } else if (ch == '+') {
      v = 62;
    } else if (ch == '/') {
      v = 63;
    } else if (ch == '=') {
      ++pad;
      ++symbols;
      continue;
    } else if (ch == ' ' || ch == '\n' || ch == '\r' || ch == '\t') {
      continue;
    } else {
      throw Error(
          at, "textureImageData is not base64: it holds the byte " + printable(std::string(1, ch)));
    }
    if (pad) throw Error(at, "textureImageData is not base64: data after its '=' padding");
    ++symbols;
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<uint8_t>((acc >> bits) & 0xff));
    }
  }
  if (symbols % 4 == 1 || pad > 2)
    throw Error(at, "textureImageData is not base64: its length is not a whole number of groups");
  return out;
}

std::vector<uint8_t> inflate_texture(const std::vector<uint8_t>& bytes, const SourceLoc& at) {
  if (is_png(bytes) || is_tiff(bytes)) return bytes;
  z_stream zs{};
  // 15 + 32: zlib or gzip, by the header.
  if (inflateInit2(&zs, 15 + 32) != Z_OK) throw Error(at, "cannot start zlib's inflate");
  std::vector<uint8_t> out;
  zs.next_in = const_cast<Bytef*>(bytes.data());
  zs.avail_in = static_cast<uInt>(bytes.size());
  int rc = Z_OK;
  while (rc == Z_OK) {
    if (out.size() >= kMaxInflatedBytes) {
      inflateEnd(&zs);
      throw Error(at, "textureImageData inflates to more than " + mib(kMaxInflatedBytes) +
                          ", the importer's cap on an embedded texture");
    }
    const size_t have = out.size();
    out.resize(std::min(kMaxInflatedBytes, std::max<size_t>(have * 2, 1 << 16)));
    zs.next_out = out.data() + have;
    zs.avail_out = static_cast<uInt>(out.size() - have);
    rc = inflate(&zs, Z_NO_FLUSH);
    out.resize(out.size() - zs.avail_out);
    if (rc == Z_BUF_ERROR && zs.avail_in == 0) break;  // truncated
    if (rc == Z_BUF_ERROR) rc = Z_OK;
  }
  const char* msg = zs.msg;
  inflateEnd(&zs);
  if (rc != Z_STREAM_END)
    throw Error(at, std::string("textureImageData is not gzip or zlib data, or is truncated") +
                        (msg ? std::string(" (zlib: ") + printable(msg) + ")" : ""));
  return out;
}

Rgba8Image decode_image(const std::vector<uint8_t>& bytes, const std::string& what,
                        const SourceLoc& at) {
  if (is_tiff(bytes)) return decode_tiff(bytes, what, at);
  if (!is_png(bytes))
    throw Error(at, what +
                        " is neither a PNG nor a TIFF image (the formats Particle Designer "
                        "stores)");
  Rgba8Image img;
  try {
    check_png_size(bytes, what, kMaxImportTextureSide);
    DecodedPng d = decode_png(bytes, what);
    img.width = d.width;
    img.height = d.height;
    img.rgba = std::move(d.rgba);
  } catch (const Error& e) {
    throw Error(at, e.diagnostics().front().message);
  }
  return img;
}

}  // namespace spritz::import_detail
