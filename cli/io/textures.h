// Texture files: read once per run, with the size cap of effect files, and
// handed to the raster library as bytes (it reads no files itself).
#pragma once

#include "spritz/effect.h"
#include "spritz/raster/texture.h"

namespace spritz {

// The encoded bytes of every file texture `fx` names, read the first time
// this run asks for each (so --seeds, which loads an effect once per seed,
// and atlas sheets of many effects read a texture file once), and recorded
// as inputs no output may replace. Throws spritz::Error at the emitter's
// texture key (file:line:col) when a file cannot be read or is over 64 MiB.
// Safe to call from several threads.
const TextureBytes& texture_files(const Effect& fx);

// Forgets the bytes read so far (not those provide_texture supplied), so
// the next texture_files() reads the files again: for `preview`, which reloads an effect when a
// texture file changes. No other thread may be using texture_files()' result meanwhile.
void forget_texture_files();

// Supplies the bytes of the texture at `path` (an imported effect's, decoded
// from the file it came in), so that texture_files() never reads that path.
void provide_texture(const std::string& path, std::vector<unsigned char> bytes);

// load_textures() with this run's texture bytes.
// `threads`: built on up to that many threads (the same textures for any).
TextureSet effect_textures(const Effect& fx, double px_per_design_px, int threads = 1);

}  // namespace spritz
