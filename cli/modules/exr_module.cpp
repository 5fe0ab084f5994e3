// spritz-exr.so: OpenEXR's half-float writer and reader, loaded by
// io/exr.cpp on first use (io/module.h). Errors come back as text, never as
// exceptions across the module's boundary.
#include <ImathBox.h>
#include <ImfHeader.h>
#include <ImfIO.h>
#include <ImfRgbaFile.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "modules/module_abi.h"

namespace {

// OpenEXR's output stream into a byte vector, so the file is written
// atomically like every other (write_file_atomic).
class MemoryStream : public Imf::OStream {
 public:
  MemoryStream() : Imf::OStream("memory") {}
  void write(const char c[], int n) override {
    const size_t end = pos_ + static_cast<size_t>(n);
    if (end > bytes.size()) bytes.resize(end);
    std::memcpy(bytes.data() + pos_, c, static_cast<size_t>(n));
    pos_ = end;
  }
  uint64_t tellp() override { return pos_; }
  void seekp(uint64_t pos) override { pos_ = static_cast<size_t>(pos); }
  std::vector<uint8_t> bytes;

 private:
  size_t pos_ = 0;
};

// A finite half: negative light and NaN cannot occur in the buffer, but the
// file must never hold an infinity either.
half to_half(float v) {
  return half(std::clamp(std::isfinite(v) ? v : 0.0f, 0.0f, 65504.0f));
}

}  // namespace

extern "C" const char* spritz_module_abi() {
  return SPRITZ_MODULE_ABI;
}

// A width x height float RGBA frame (linear light, premultiplied) as an
// OpenEXR file in `out`; false with `error` set when OpenEXR fails.
extern "C" bool spritz_exr_encode(const float* rgba, int width, int height,
                                  std::vector<uint8_t>* out, std::string* error) {
  std::vector<Imf::Rgba> px(static_cast<size_t>(width) * static_cast<size_t>(height));
  for (size_t i = 0; i < px.size(); ++i) {
    const float* s = &rgba[i * 4];
    px[i] =
        Imf::Rgba(to_half(s[0]), to_half(s[1]), to_half(s[2]), half(std::clamp(s[3], 0.0f, 1.0f)));
  }
  MemoryStream stream;
  try {
    Imf::Header header(width, height);
    header.compression() = Imf::ZIP_COMPRESSION;
    Imf::RgbaOutputFile file(stream, header, Imf::WRITE_RGBA);
    file.setFrameBuffer(px.data(), 1, static_cast<size_t>(width));
    file.writePixels(height);
  } catch (const std::exception& e) {
    *error = e.what();
    return false;
  }
  *out = std::move(stream.bytes);
  return true;
}

// Whether `path` is an OpenEXR file that OpenEXR reads as complete.
extern "C" bool spritz_exr_complete(const char* path) {
  // The offset table comes first, so a cut file can still look complete to
  // isComplete(): read every scanline (cheaper than rendering the frame).
  try {
    Imf::RgbaInputFile file(path);
    if (!file.isComplete()) return false;
    const Imath::Box2i dw = file.dataWindow();
    const int64_t w = int64_t{dw.max.x} - dw.min.x + 1, h = int64_t{dw.max.y} - dw.min.y + 1;
    if (w <= 0 || h <= 0 || w > 16384 || h > 16384) return false;
    std::vector<Imf::Rgba> px(static_cast<size_t>(w * h));
    file.setFrameBuffer(px.data() - dw.min.x - dw.min.y * w, 1, static_cast<size_t>(w));
    file.readPixels(dw.min.y, dw.max.y);
    return true;
  } catch (const std::exception&) {
    return false;
  }
}
