// The program language's syntax tree, as the parser builds it and the
// compiler reads it. Nothing here is checked yet: names, types and array
// sizes are resolved by the compiler.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "lexer.h"

namespace spritz::program {

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

// A type as written: a name (float, vec3, a struct's name) and an optional
// array size (an integer constant expression; `[]` sized by its initializer).
struct TypeSpec {
  std::string name;
  Pos pos;
  ExprPtr array_size;    // null: not an array, unless unsized
  bool unsized = false;  // written `[]`
};

struct Expr {
  enum class Kind {
    kInt,  // integer literal (`integer`), kUint the same with u
    kUint,
    kFloat,    // `number`
    kBool,     // true / false (`integer` 1 or 0)
    kName,     // `name`
    kUnary,    // `op` in + - ! ~ and pre ++ --: args[0]
    kPostfix,  // `op` ++ or --: args[0]
    kBinary,   // `op`: args[0] op args[1]
    kAssign,   // `op` = += -= ...: args[0] op args[1]
    kTernary,  // args[0] ? args[1] : args[2]
    kCall,     // `name`(args), a function or a constructor; `type` for T[N](...)
    kMember,   // args[0].name: a field or a swizzle
    kIndex,    // args[0][args[1]]
    kComma,    // args[0], args[1]
  };
  Kind kind;
  Pos pos;
  std::string name, op;
  double number = 0;
  uint64_t integer = 0;
  std::vector<ExprPtr> args;
  std::unique_ptr<TypeSpec> array_type;  // kCall of an array constructor `float[3](...)`
  int height = 1;                        // 1 + the tallest operand's (the parser bounds it)
};

struct Stmt;
using StmtPtr = std::unique_ptr<Stmt>;

// One name of a declaration: `float a = 1.0, b[2];`.
struct Declarator {
  std::string name;
  Pos pos;
  ExprPtr array_size;
  bool unsized = false;
  ExprPtr init;
};

struct Stmt {
  enum class Kind {
    kExpr,   // expr
    kDecl,   // [const] type declarators
    kBlock,  // body
    kIf,     // if (cond) body[0] else body[1]
    kFor,    // for (init; cond; step) body[0]; init is body[1] (may be null)
    kWhile,  // while (cond) body[0]
    kDo,     // do body[0] while (cond)
    kBreak,
    kContinue,
    kReturn,  // expr may be null
    kDiscard,
    kSwitch,  // unsupported: refused with its place
    kEmpty,
  };
  Kind kind;
  Pos pos;
  ExprPtr expr, cond, step;
  bool is_const = false;
  TypeSpec type;
  std::vector<Declarator> names;
  std::vector<StmtPtr> body;
};

struct Param {
  std::string qualifier;  // "in", "out", "inout" ("in" when not written)
  bool is_const = false;
  TypeSpec type;
  std::string name;
  Pos pos;
};

struct Function {
  TypeSpec result;
  std::string name;
  Pos pos;
  std::vector<Param> params;
  StmtPtr body;  // a kBlock
};

struct StructDecl {
  std::string name;
  Pos pos;
  struct Field {
    TypeSpec type;
    std::string name;
    Pos pos;
  };
  std::vector<Field> fields;
};

// `uniform type name : hints = default;`
struct UniformDecl {
  TypeSpec type;
  std::string name;
  Pos pos;
  struct Hint {
    std::string name;
    Pos pos;
    std::vector<ExprPtr> args;
  };
  std::vector<Hint> hints;
  ExprPtr init;
};

// A whole program: its top-level declarations in file order.
struct Unit {
  std::string shader_type;  // empty when not written
  Pos shader_type_pos;
  std::vector<std::pair<std::string, Pos>> render_modes;
  std::vector<StructDecl> structs;
  std::vector<UniformDecl> uniforms;
  std::vector<StmtPtr> globals;  // `const` declarations
  std::vector<Function> functions;
  // The order of structs, uniforms, globals and functions as written:
  // (0 struct, 1 uniform, 2 global, 3 function; index into that list).
  std::vector<std::pair<int, size_t>> order;
};

}  // namespace spritz::program
