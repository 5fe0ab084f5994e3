// .exr frames through spritz-exr.so (io/module.h): OpenEXR and its own
// libraries are loaded only by a run that writes or checks an .exr.
#include "io/exr.h"

#include "io/module.h"
#include "spritz/error.h"

namespace spritz {

std::vector<uint8_t> encode_exr(const Image& img, const std::string& module_dir) {
  using Encode = bool (*)(const float*, int, int, std::vector<uint8_t>*, std::string*);
  const auto encode =
      reinterpret_cast<Encode>(module_symbol(module_dir, "exr", "spritz_exr_encode"));
  std::vector<uint8_t> out;
  std::string error;
  if (!encode(img.rgba.data(), img.width, img.height, &out, &error))
    throw Error("OpenEXR encoding failed: " + error);
  return out;
}

bool exr_file_complete(const std::string& path, const std::string& module_dir) {
  using Complete = bool (*)(const char*);
  const auto complete =
      reinterpret_cast<Complete>(module_symbol(module_dir, "exr", "spritz_exr_complete"));
  return complete(path.c_str());
}

}  // namespace spritz
