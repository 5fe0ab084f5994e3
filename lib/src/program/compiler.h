// The program compiler: checks a syntax tree (ast.h) and turns it into the
// machine's scalar code (code.h) in one pass. Every user function is inlined
// where it is called (recursion is refused), values are split into scalar
// registers, and registers are handed out as a stack: a statement's
// temporaries are free again when it ends, a block's variables when it
// closes. Errors are collected, not thrown, so one compile reports them all;
// an expression in error has Base::kError and raises no further messages.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "ast.h"
#include "compiled.h"
#include "type.h"

namespace spritz::program {

struct Value {
  Type type;
  std::vector<Reg> regs;  // one per scalar, in the type's order (type.h)
  bool literal = false;   // an integer literal, which may also be used as a uint
  int64_t literal_int = 0;
  int sampler = -1;  // a sampler2D: which of the program's samplers
};

// Where a store goes: for each scalar of the value, the registers it may
// land in, each under a guard (a word register that is 1 for the lanes
// whose dynamic index picked it; kAlways when none).
inline constexpr uint32_t kAlways = 0xFFFFFFFFu;
struct Target {
  Reg reg;
  uint32_t guard = kAlways;
};

struct Variable {
  std::string name;
  Type type;
  std::vector<Reg> regs;
  Pos pos;
  uint32_t mask = 0;                 // the execution mask it was declared under
  bool is_const = false;             // `const`: its value is known when it compiles
  std::string read_only;             // why it cannot be written; empty when it can
  int builtin = -1;                  // a ProgramVar it is, or -1
  int sampler = -1;                  // a sampler2D uniform or parameter: its sampler
  const Expr* const_init = nullptr;  // a const's initializer (array sizes)
  int const_depth = 0;
};

struct LValue {
  Type type;
  std::vector<std::vector<Target>> scalars;
  const Variable* var = nullptr;  // the variable the store lands in
  bool ok = false;
};

struct CompileError {
  Pos pos;
  std::string message;
  bool warning = false;
};

class Compiler {
 public:
  explicit Compiler(Compiled& out) : out_(out) {}
  void compile(const Unit& unit);
  std::vector<CompileError> errors;
  ProgramNames names;  // the effect's curves and gradients
  // A Godot shader with spritz's glue (godot_glue.cpp): Godot's built-in
  // variables instead of spritz's, and the glue's __s_ entry functions.
  bool godot = false;
  bool godot3 = false;  // the shader is Godot 3's (vertex()): INDEX is an int, not a uint

  // ---- shared with the built-in functions (builtins.cpp)
  void error(Pos p, std::string message);
  void warn(Pos p, std::string message);
  std::string name_of(const Type& t) const { return type_name(t, structs_); }
  uint32_t count(const Type& t) const { return scalar_count(t, structs_); }
  void emit(Op op, uint32_t d, uint32_t a = 0, uint32_t b = 0, uint32_t c = 0);
  Reg new_f();
  Reg new_u();
  Reg fconst(double v);
  Reg uconst(uint32_t v);
  Value temp(const Type& t);
  Value error_value() const { return Value{}; }
  // An implicit conversion (int or uint to float, an integer literal to
  // uint); an error naming both types when none applies.
  Value convert(const Value& v, const Type& to, Pos p, const std::string& context);
  // An explicit one (constructors): any scalar base to any other.
  Reg convert_scalar(Reg r, Base from, Base to);
  Value splat(const Value& scalar, const Type& to);  // a scalar to every component
  Value component(const Value& v, uint32_t i) const;
  Value float_op(Op op, const std::vector<Value>& args);  // componentwise over floats
  Value word_op(Op op, const Type& result, const std::vector<Value>& args);
  // A built-in function's call; false when `name` is none.
  bool builtin_call(const Expr& call, std::vector<Value>& args, Value& out);
  bool is_builtin_function(const std::string& name) const;
  bool builtin_call_more(const Expr& call, std::vector<Value>& args, Value& out);
  bool geometric(const Expr& call, std::vector<Value>& args, Value& out);
  bool matrix_function(const Expr& call, std::vector<Value>& args, Value& out);
  bool relational(const Expr& call, std::vector<Value>& args, Value& out);
  Reg dot_of(const Value& a, const Value& b);
  using Grid = std::vector<std::vector<uint32_t>>;  // [row][column] float registers
  Reg determinant_of(const Grid& m);
  static Grid minor_of(const Grid& m, size_t row, size_t col);

 private:
  // ---- top level (compile_unit.cpp)
  void declare_structs(const Unit& unit);
  void declare_struct(const StructDecl& s);
  void declare_godot_builtins(Stage s);
  // A built-in variable in the current scope (declare_builtins and its
  // Godot kin): its registers, the ProgramVar it is (or -1), why it is
  // read-only (null: writable), and the mask its stores run under.
  void add_builtin(const char* name, Type t, std::vector<Reg> regs, int builtin,
                   const char* read_only, uint32_t mask);
  static std::vector<Reg> float_regs(uint32_t at, uint32_t n);
  void declare_function(const Function& f);
  void declare_uniform(const UniformDecl& u);
  void check_uniform_hints(const UniformDecl& u, UniformInfo& info);
  void declare_sampler(const UniformDecl& u, const Type& t);
  void compile_entry(const Function& f, Stage s);
  void check_uncalled(uint32_t globals_f, uint32_t globals_u);
  void place_constants();
  void declare_builtins(Stage s);
  Type resolve(const TypeSpec& ts, const Expr* size, bool unsized, const Expr* init);
  bool const_int(const Expr& e, int64_t& out, int depth = 0);

  // ---- statements (compile_stmt.cpp)
  void statement(const Stmt& s);
  void block(const std::vector<StmtPtr>& body, bool new_scope);
  void declaration(const Stmt& s);
  void if_statement(const Stmt& s);
  void loop(const Stmt& s);
  void jump(const Stmt& s);
  void after_exit(uint32_t region_mask);
  Variable& declare(const std::string& name, const Type& t, Pos p);
  void push_scope();
  void pop_scope();

  // ---- expressions (compile_expr.cpp)
 public:
  Value expr(const Expr& e);
  LValue lvalue(const Expr& e);
  Value load(const LValue& lv);
  void store(const LValue& lv, const Value& v);

 private:
  Value name(const Expr& e);
  Value literal(const Expr& e);
  Value unary(const Expr& e);
  Value incdec(const Expr& e);
  Value binary(const Expr& e);
  Value arithmetic(const std::string& op, const Value& a, const Value& b, Pos p);
  Value matrix_product(const Value& a, const Value& b);
  Value comparison(const std::string& op, const Value& a, const Value& b, Pos p);
  Value logical(const Expr& e);
  Value assign(const Expr& e);
  Value ternary(const Expr& e);
  Value member(const Expr& e);
  Value index(const Expr& e);
  Value call(const Expr& e);
  Value effect_curve(const Expr& e);
  Value sampler_call(const Expr& e);
  Value emit_subparticle(const Expr& e);
  Value construct(const Expr& e, const Type& t, std::vector<Value>& args);
  Value user_call(const Expr& e, const std::vector<const Function*>& overloads);
  bool swizzle(const std::string& s, uint32_t size, std::vector<uint32_t>& out, Pos p);
  LValue index_lvalue(LValue base, const Expr& index_expr, Pos p);
  Reg clamped_index(const Value& i, uint32_t n, Pos p);
  const Variable* find(const std::string& name) const;
  void unknown_name(const std::string& name, Pos p, bool function);
  bool pure(const Expr& e) const;

  Compiled& out_;
  std::vector<StructType> structs_;
  std::vector<Instr>* code_ = nullptr;
  // Registers: [builtins | stack ...]; constants are numbered apart
  // (kConstant | k) and placed after the stack when compiling ends.
  uint32_t next_f_ = kFBuiltins, next_u_ = kUBuiltins;
  std::map<uint64_t, uint32_t> fconsts_;
  std::map<uint32_t, uint32_t> uconsts_;
  std::vector<std::deque<Variable>> scopes_;  // a deque: a Variable never moves
  std::map<std::string, std::vector<const Function*>> functions_;
  std::set<const Function*> called_;
  // Execution masks (code.h): the lanes running now, and for the constructs
  // around: the loop's lanes that broke or continued, the function's that
  // returned.
  uint32_t mask_ = kUMask;
  struct LoopFrame {
    uint32_t broke, continued;
    size_t function_depth;
  };
  struct FunctionFrame {
    const Function* f;
    uint32_t returned;
    Value result;
    Type result_type;
  };
  std::vector<LoopFrame> loops_;
  std::vector<FunctionFrame> calls_;
  std::vector<std::pair<uint32_t, uint32_t>> marks_;  // each scope's first free registers
  uint32_t entry_returned_ = 0;  // the lanes that returned from start(), process() or pose()
  size_t returns_ = 0;           // return statements compiled so far
  bool exited_ = false;  // a break, continue or return was compiled since the flag was cleared
  uint32_t writes_ = 0;
  size_t instruction_limit_ = 1u << 20;
  Stage stage_ = Stage::kStart;
  bool in_prologue_ = false;
  bool too_big_ = false;
  uint64_t inlined_ = 0;
  std::set<std::tuple<uint32_t, uint32_t, std::string>> reported_;  // errors said (error())
  std::set<std::pair<uint32_t, uint32_t>>
      unknown_said_;  // unknown_name()'s places  // function bodies inlined so far (user_call)
  static constexpr uint64_t kMaxInlined = 1u << 15;

 public:
  static constexpr uint32_t kConstant = 0x80000000u;
  friend struct CompilerAccess;
};

}  // namespace spritz::program
