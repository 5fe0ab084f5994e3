// The program language's types: scalars, vectors, matrices (column-major),
// fixed-size arrays of them and structs. A value of any type is a list of
// scalars in one order: a vector's components, a matrix's columns one after
// another, an array's elements, a struct's fields.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace spritz::program {

enum class Base : uint8_t { kError, kVoid, kBool, kInt, kUint, kFloat, kSampler, kStruct };

struct StructType;

struct Type {
  Base base = Base::kError;
  uint8_t rows = 1;    // a vector's size, a matrix's rows
  uint8_t cols = 1;    // a matrix's columns; 1 otherwise
  uint32_t array = 0;  // elements of an array; 0 when not an array
  int strukt = -1;     // index of the struct type (Base::kStruct)

  static Type scalar(Base b) { return Type{b, 1, 1, 0, -1}; }
  static Type vector(Base b, int n) { return Type{b, static_cast<uint8_t>(n), 1, 0, -1}; }
  static Type matrix(int n) {
    return Type{Base::kFloat, static_cast<uint8_t>(n), static_cast<uint8_t>(n), 0, -1};
  }

  bool is_error() const { return base == Base::kError; }
  bool is_array() const { return array > 0; }
  bool is_scalar() const { return !is_array() && base != Base::kStruct && rows == 1 && cols == 1; }
  bool is_vector() const { return !is_array() && cols == 1 && rows > 1; }
  bool is_matrix() const { return !is_array() && cols > 1; }
  bool is_numeric() const {
    return !is_array() && (base == Base::kInt || base == Base::kUint || base == Base::kFloat);
  }
  bool is_integer() const { return !is_array() && (base == Base::kInt || base == Base::kUint); }
  bool is_float() const { return !is_array() && base == Base::kFloat; }
  bool is_bool() const { return !is_array() && base == Base::kBool; }
  // A scalar, vector or matrix (not an array or struct).
  bool is_plain() const {
    return !is_array() && base != Base::kStruct && base != Base::kVoid && base != Base::kSampler &&
           base != Base::kError;
  }
  Type element() const {
    Type t = *this;
    t.array = 0;
    return t;
  }
  Type with_base(Base b) const {
    Type t = *this;
    t.base = b;
    return t;
  }
  // The type of one component (the scalar of a vector or matrix).
  Type component() const { return scalar(base); }
  uint32_t components() const { return static_cast<uint32_t>(rows) * cols; }
  bool operator==(const Type& o) const {
    return base == o.base && rows == o.rows && cols == o.cols && array == o.array &&
           strukt == o.strukt;
  }
  bool operator!=(const Type& o) const { return !(*this == o); }
};

struct StructType {
  std::string name;
  struct Field {
    std::string name;
    Type type;
  };
  std::vector<Field> fields;
};

// How many scalars a value of `t` holds.
uint32_t scalar_count(const Type& t, const std::vector<StructType>& structs);

// The type's name as a program writes it: "vec3", "float[4]", "Particle".
std::string type_name(const Type& t, const std::vector<StructType>& structs);

// The type a type name means (without an array size); Base::kError when
// the name is not a type.
Type type_from_name(const std::string& name, const std::vector<StructType>& structs);

}  // namespace spritz::program
