// A frame's particles of one emitter: a contiguous array of Particle, used
// as a std::vector is. Evaluating a window on several threads sizes the
// list for every key first and each thread writes its own piece, so
// resize() leaves the particles it adds unwritten (each is written before
// it is read), and the storage comes in blocks populated for writing
// (spritz's memory library, system/: on 2 MiB pages from 1 MiB up). It
// grows as libstdc++'s vector does (doubling).
#pragma once

#include <cstddef>
#include <initializer_list>
#include <iterator>
#include <new>
#include <stdexcept>
#include <type_traits>

#include "spritz/particle.h"

namespace spritz {

static_assert(std::is_trivially_copyable_v<Particle> && std::is_trivially_destructible_v<Particle>,
              "a ParticleList's unwritten storage needs a Particle of plain numbers");

class ParticleList {
 public:
  using value_type = Particle;
  using size_type = size_t;
  using iterator = Particle*;
  using const_iterator = const Particle*;

  ParticleList() noexcept = default;
  ParticleList(std::initializer_list<Particle> list) { assign(list.begin(), list.end()); }
  ParticleList(const ParticleList& other) { assign(other.begin(), other.end()); }
  ParticleList(ParticleList&& other) noexcept { swap(other); }
  ParticleList& operator=(const ParticleList& other) {
    if (this != &other) assign(other.begin(), other.end());
    return *this;
  }
  ParticleList& operator=(ParticleList&& other) noexcept {
    ParticleList taken(std::move(other));
    swap(taken);
    return *this;
  }
  ParticleList& operator=(std::initializer_list<Particle> list) {
    assign(list.begin(), list.end());
    return *this;
  }
  ~ParticleList() { release(); }

  size_t size() const noexcept { return size_; }
  size_t capacity() const noexcept { return capacity_; }
  bool empty() const noexcept { return size_ == 0; }
  Particle* data() noexcept { return data_; }
  const Particle* data() const noexcept { return data_; }
  Particle* begin() noexcept { return data_; }
  Particle* end() noexcept { return data_ + size_; }
  const Particle* begin() const noexcept { return data_; }
  const Particle* end() const noexcept { return data_ + size_; }
  Particle& operator[](size_t i) noexcept { return data_[i]; }
  const Particle& operator[](size_t i) const noexcept { return data_[i]; }
  Particle& at(size_t i) {
    if (i >= size_) throw std::out_of_range("ParticleList::at");
    return data_[i];
  }
  const Particle& at(size_t i) const {
    if (i >= size_) throw std::out_of_range("ParticleList::at");
    return data_[i];
  }
  Particle& front() noexcept { return data_[0]; }
  const Particle& front() const noexcept { return data_[0]; }
  Particle& back() noexcept { return data_[size_ - 1]; }
  const Particle& back() const noexcept { return data_[size_ - 1]; }

  void clear() noexcept { size_ = 0; }
  void reserve(size_t n) {
    if (n > capacity_) reallocate(n);
  }
  // To n particles; those added are unwritten (the caller writes each).
  void resize(size_t n) {
    if (n > capacity_) reallocate(grown(n));
    size_ = n;
  }
  void push_back(const Particle& p) {
    if (size_ == capacity_) reallocate(grown(size_ + 1));
    ::new (static_cast<void*>(data_ + size_)) Particle(p);
    ++size_;
  }
  template <typename It>
  void assign(It first, It last) {
    clear();
    if constexpr (std::is_base_of_v<std::forward_iterator_tag,
                                    typename std::iterator_traits<It>::iterator_category>)
      reserve(static_cast<size_t>(std::distance(first, last)));
    for (; first != last; ++first) push_back(*first);
  }
  void swap(ParticleList& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
    std::swap(capacity_, other.capacity_);
  }

 private:
  // The capacity libstdc++'s vector grows to for `n` elements: the size
  // again on top, or what is needed when that is more.
  size_t grown(size_t n) const noexcept {
    const size_t more = n - size_;
    return size_ + (size_ > more ? size_ : more);
  }
  // Moves the particles to a new block of `capacity` (particle_list.cpp).
  void reallocate(size_t capacity);
  void release() noexcept;

  Particle* data_ = nullptr;
  size_t size_ = 0, capacity_ = 0;
};

}  // namespace spritz
