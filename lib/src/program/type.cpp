// The program language's types: names and sizes.
#include "type.h"

namespace spritz::program {

uint32_t scalar_count(const Type& t, const std::vector<StructType>& structs) {
  uint32_t one = 0;
  if (t.base == Base::kStruct) {
    if (t.strukt < 0 || static_cast<size_t>(t.strukt) >= structs.size()) return 0;
    for (const StructType::Field& f : structs[static_cast<size_t>(t.strukt)].fields)
      one += scalar_count(f.type, structs);
  } else if (t.base == Base::kVoid || t.base == Base::kError || t.base == Base::kSampler) {
    one = 0;
  } else {
    one = t.components();
  }
  return t.array > 0 ? one * t.array : one;
}

std::string type_name(const Type& t, const std::vector<StructType>& structs) {
  std::string s;
  const int n = t.rows;
  switch (t.base) {
    case Base::kError:
      return "<error>";
    case Base::kVoid:
      s = "void";
      break;
    case Base::kSampler:
      s = "sampler2D";
      break;
    case Base::kStruct:
      s = t.strukt >= 0 && static_cast<size_t>(t.strukt) < structs.size()
              ? structs[static_cast<size_t>(t.strukt)].name
              : "struct";
      break;
    case Base::kFloat:
      s = t.cols > 1 ? "mat" + std::to_string(t.cols)
                     : (n == 1 ? "float" : "vec" + std::to_string(n));
      break;
    case Base::kInt:
      s = n == 1 ? "int" : "ivec" + std::to_string(n);
      break;
    case Base::kUint:
      s = n == 1 ? "uint" : "uvec" + std::to_string(n);
      break;
    case Base::kBool:
      s = n == 1 ? "bool" : "bvec" + std::to_string(n);
      break;
  }
  if (t.array > 0) s += "[" + std::to_string(t.array) + "]";
  return s;
}

Type type_from_name(const std::string& name, const std::vector<StructType>& structs) {
  if (name == "void") return Type::scalar(Base::kVoid);
  if (name == "float") return Type::scalar(Base::kFloat);
  if (name == "int") return Type::scalar(Base::kInt);
  if (name == "uint") return Type::scalar(Base::kUint);
  if (name == "bool") return Type::scalar(Base::kBool);
  if (name == "sampler2D" || name == "isampler2D") return Type::scalar(Base::kSampler);
  const auto sized = [&](const std::string& prefix, Base b) {
    if (name.size() == prefix.size() + 1 && name.compare(0, prefix.size(), prefix) == 0) {
      const char c = name.back();
      if (c >= '2' && c <= '4') return Type::vector(b, c - '0');
    }
    return Type{};
  };
  for (const auto& [prefix, b] : {std::pair<const char*, Base>{"vec", Base::kFloat},
                                  {"ivec", Base::kInt},
                                  {"uvec", Base::kUint},
                                  {"bvec", Base::kBool}}) {
    const Type t = sized(prefix, b);
    if (!t.is_error()) return t;
  }
  if (name == "mat2" || name == "mat2x2") return Type::matrix(2);
  if (name == "mat3" || name == "mat3x3") return Type::matrix(3);
  if (name == "mat4" || name == "mat4x4") return Type::matrix(4);
  for (size_t i = 0; i < structs.size(); ++i)
    if (structs[i].name == name) {
      Type t = Type::scalar(Base::kStruct);
      t.strukt = static_cast<int>(i);
      return t;
    }
  return Type{};
}

}  // namespace spritz::program
