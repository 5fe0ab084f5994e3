// A ParticleList's storage (spritz/particle_list.h): written blocks from
// spritz's memory library, which the model's public headers do not show.
#include "spritz/particle_list.h"

#include <cstring>
#include <limits>

#include "spritz/system/memory.h"

namespace spritz {

void ParticleList::reallocate(size_t capacity) {
  if (capacity > std::numeric_limits<size_t>::max() / sizeof(Particle))
    throw std::bad_array_new_length();
  auto* block = static_cast<Particle*>(allocate_written_block(capacity * sizeof(Particle)));
  if (size_) std::memcpy(static_cast<void*>(block), data_, size_ * sizeof(Particle));
  release();
  data_ = block;
  capacity_ = capacity;
}

void ParticleList::release() noexcept {
  if (data_) free_written_block(data_, capacity_ * sizeof(Particle));
  data_ = nullptr;
  capacity_ = 0;
}

}  // namespace spritz
