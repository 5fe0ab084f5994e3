// The program language's parser: recursive descent over GLSL's grammar as
// Godot's shading language writes it, one function per rule, precedence
// climbing for binary operators (GLSL 4.60 section 5.1's table).
#include "parser.h"

#include <array>
#include <set>
#include <string_view>

namespace spritz::program {
namespace {

constexpr std::array<std::string_view, 25> kTypeNames = {
    "void",  "bool",  "int",    "uint",   "float",  "vec2",      "vec3",      "vec4",  "ivec2",
    "ivec3", "ivec4", "uvec2",  "uvec3",  "uvec4",  "bvec2",     "bvec3",     "bvec4", "mat2",
    "mat3",  "mat4",  "mat2x2", "mat3x3", "mat4x4", "sampler2D", "isampler2D"};

// Binary operators by precedence, loosest first (GLSL 4.60 5.1).
constexpr std::array<std::array<std::string_view, 4>, 10> kLevels = {{
    {"||"},
    {"^^"},
    {"&&"},
    {"|"},
    {"^"},
    {"&"},
    {"==", "!="},
    {"<", ">", "<=", ">="},
    {"<<", ">>"},
    {"+", "-"},
}};

struct Stop {};  // thrown after an error is recorded: the caller resynchronises

class Parser {
 public:
  Parser(const std::vector<Token>& t, std::vector<ParseError>& e) : t_(t), errors_(e) {}

  Unit run() {
    Unit u;
    while (!at_end()) {
      try {
        top_level(u);
      } catch (const Stop&) {
        recover_top_level();
      }
    }
    return u;
  }

 private:
  // ---- tokens
  const Token& peek(size_t k = 0) const {
    const size_t i = std::min(i_ + k, t_.size() - 1);
    return t_[i];
  }
  bool at_end() const { return peek().kind == Tok::kEnd; }
  bool is(std::string_view punct, size_t k = 0) const {
    return peek(k).kind == Tok::kPunct && peek(k).text == punct;
  }
  bool is_word(std::string_view w, size_t k = 0) const {
    return peek(k).kind == Tok::kIdent && peek(k).text == w;
  }
  const Token& next() {
    const Token& t = peek();
    if (i_ < t_.size() - 1) ++i_;
    return t;
  }
  bool accept(std::string_view punct) {
    if (!is(punct)) return false;
    next();
    return true;
  }
  [[noreturn]] void fail(Pos p, std::string message) {
    errors_.push_back({p, std::move(message)});
    throw Stop{};
  }
  static std::string describe(const Token& t) {
    switch (t.kind) {
      case Tok::kEnd:
        return "the end of the program";
      case Tok::kIdent:
        return "'" + t.text + "'";
      case Tok::kPunct:
        return "'" + t.text + "'";
      default:
        return "the number " + t.text;
    }
  }
  void expect(std::string_view punct, std::string_view after) {
    if (accept(punct)) return;
    fail(peek().pos, "expected '" + std::string(punct) + "' " + std::string(after) + ", found " +
                         describe(peek()));
  }
  std::string identifier(std::string_view what) {
    if (peek().kind != Tok::kIdent)
      fail(peek().pos, "expected " + std::string(what) + ", found " + describe(peek()));
    return next().text;
  }

  // After an error: skip to the next ';' or '}' at this depth (a '}' that
  // closes a function ends the function).
  void recover_top_level() {
    int depth = 0;
    while (!at_end()) {
      if (is("{")) ++depth;
      if (is("}")) {
        next();
        if (--depth <= 0) return;
        continue;
      }
      if (is(";") && depth == 0) {
        next();
        return;
      }
      next();
    }
  }
  void recover_statement() {
    int depth = 0;
    while (!at_end()) {
      if (is("{")) ++depth;
      if (is("}")) {
        if (depth == 0) return;  // the enclosing block's end
        --depth;
        next();
        if (depth == 0) return;
        continue;
      }
      if (is(";") && depth == 0) {
        next();
        return;
      }
      next();
    }
  }

  // ---- types
  bool is_type_name(const Token& t) const {
    return t.kind == Tok::kIdent && (is_builtin_type(t.text) || structs_.count(t.text) > 0);
  }
  static bool is_precision(const Token& t) {
    return t.kind == Tok::kIdent && (t.text == "highp" || t.text == "mediump" || t.text == "lowp");
  }
  TypeSpec type_spec() {
    while (is_precision(peek())) next();
    TypeSpec ts;
    ts.pos = peek().pos;
    if (!is_type_name(peek())) {
      const std::string& w = peek().text;
      if (peek().kind == Tok::kIdent && w != "sampler2D" && w.find("sampler") != std::string::npos)
        fail(peek().pos, w + " is not supported: a program reads 2D textures (sampler2D) only "
                             "(docs/programs.md, \"Textures\")");
      fail(peek().pos, "expected a type, found " + describe(peek()));
    }
    ts.name = next().text;
    if (accept("[")) {
      if (accept("]")) {
        ts.unsized = true;
      } else {
        ts.array_size = expression();
        expect("]", "after the array size");
      }
    }
    return ts;
  }
  // `[N]` or `[]` after a declared name.
  void array_suffix(ExprPtr& size, bool& unsized) {
    if (!accept("[")) return;
    if (accept("]")) {
      unsized = true;
      return;
    }
    size = expression();
    expect("]", "after the array size");
  }

  // ---- top level
  void top_level(Unit& u) {
    const Token& t = peek();
    if (is_word("shader_type")) {
      next();
      u.shader_type_pos = peek().pos;
      u.shader_type = identifier("a shader type (particles)");
      expect(";", "after shader_type");
    } else if (is_word("render_mode")) {
      next();
      do {
        const Pos p = peek().pos;
        u.render_modes.emplace_back(identifier("a render mode"), p);
      } while (accept(","));
      expect(";", "after the render modes");
    } else if (is_word("group_uniforms")) {
      next();
      while (!is(";") && !at_end()) next();
      expect(";", "after group_uniforms");
    } else if (is_word("struct")) {
      struct_decl(u);
    } else if (is_word("uniform")) {
      uniform(u);
    } else if (is_word("global") || is_word("instance")) {
      fail(t.pos, "'" + t.text +
                      " uniform' is a Godot 4 scene feature spritz does not have; "
                      "declare a plain uniform");
    } else if (is_word("varying")) {
      fail(t.pos,
           "varyings pass values between a shader's stages; a particle program has "
           "one stage: use a global const or the particle's CUSTOM and USERDATA");
    } else if (is_word("const")) {
      u.order.emplace_back(2, u.globals.size());
      u.globals.push_back(declaration_statement());
    } else {
      function(u);
    }
  }

  void struct_decl(Unit& u) {
    next();
    StructDecl s;
    s.pos = peek().pos;
    s.name = identifier("a struct name");
    structs_.insert(s.name);
    expect("{", "to open the struct");
    while (!accept("}")) {
      if (at_end()) fail(peek().pos, "this struct is never closed with '}'");
      TypeSpec ts = type_spec();
      do {
        StructDecl::Field f;
        f.pos = peek().pos;
        f.name = identifier("a field name");
        f.type.name = ts.name;
        f.type.pos = ts.pos;
        f.type.unsized = ts.unsized;
        if (ts.array_size) f.type.array_size = clone(*ts.array_size);
        array_suffix(f.type.array_size, f.type.unsized);
        s.fields.push_back(std::move(f));
      } while (accept(","));
      expect(";", "after a field");
    }
    expect(";", "after the struct");
    u.order.emplace_back(0, u.structs.size());
    u.structs.push_back(std::move(s));
  }

  void uniform(Unit& u) {
    next();
    UniformDecl d;
    d.type = type_spec();
    d.pos = peek().pos;
    d.name = identifier("a uniform name");
    array_suffix(d.type.array_size, d.type.unsized);
    if (accept(":")) {
      do {
        UniformDecl::Hint h;
        h.pos = peek().pos;
        h.name = identifier("a hint");
        if (accept("(")) {
          if (!accept(")")) {
            do h.args.push_back(assignment());
            while (accept(","));
            expect(")", "after the hint's arguments");
          }
        }
        d.hints.push_back(std::move(h));
      } while (accept(","));
    }
    if (accept("=")) d.init = initializer(d.type.name, d.type.unsized || d.type.array_size);
    expect(";", "after the uniform");
    u.order.emplace_back(1, u.uniforms.size());
    u.uniforms.push_back(std::move(d));
  }

  void function(Unit& u) {
    Function f;
    f.result = type_spec();
    f.pos = peek().pos;
    f.name = identifier("a function name");
    expect("(", "after the function's name");
    if (is_word("void") && is(")", 1)) next();
    if (!accept(")")) {
      do f.params.push_back(param());
      while (accept(","));
      expect(")", "after the parameters");
    }
    if (!is("{")) fail(peek().pos, "expected '{' to open the body of " + f.name + "()");
    f.body = block();
    u.order.emplace_back(3, u.functions.size());
    u.functions.push_back(std::move(f));
  }

  Param param() {
    Param p;
    p.qualifier = "in";
    for (;;) {
      if (is_word("const")) {
        p.is_const = true;
        next();
      } else if (is_word("in") || is_word("out") || is_word("inout")) {
        p.qualifier = next().text;
      } else {
        break;
      }
    }
    p.type = type_spec();
    p.pos = peek().pos;
    p.name = identifier("a parameter name");
    array_suffix(p.type.array_size, p.type.unsized);
    return p;
  }

  // ---- statements
  StmtPtr block() {
    auto s = make_stmt(Stmt::Kind::kBlock);
    expect("{", "to open a block");
    while (!is("}")) {
      if (at_end()) fail(s->pos, "this block is never closed with '}'");
      try {
        s->body.push_back(statement());
      } catch (const Stop&) {
        recover_statement();
      }
    }
    next();
    return s;
  }

  StmtPtr make_stmt(Stmt::Kind k) {
    auto s = std::make_unique<Stmt>();
    s->kind = k;
    s->pos = peek().pos;
    return s;
  }

  bool starts_declaration() const {
    size_t k = 0;
    if (is_word("const")) ++k;
    while (is_precision(peek(k))) ++k;
    if (!is_type_name(peek(k))) return false;
    // `vec3(...)` is a constructor; `float[3](...)` an array constructor.
    if (peek(k + 1).kind == Tok::kIdent) return true;
    if (is("[", k + 1)) {
      size_t j = k + 2;
      int depth = 1;
      while (depth > 0 && peek(j).kind != Tok::kEnd) {
        if (is("[", j)) ++depth;
        if (is("]", j)) --depth;
        ++j;
      }
      return peek(j).kind == Tok::kIdent;
    }
    return false;
  }

  StmtPtr statement() {
    const Deeper guard(*this);
    if (is("{")) return block();
    if (is(";")) {
      auto s = make_stmt(Stmt::Kind::kEmpty);
      next();
      return s;
    }
    if (peek().kind == Tok::kIdent) {
      const std::string& w = peek().text;
      if (w == "if") return if_statement();
      if (w == "for") return for_statement();
      if (w == "while") return while_statement();
      if (w == "do") return do_statement();
      if (w == "switch") return switch_statement();
      if (w == "break" || w == "continue" || w == "discard") {
        auto s = make_stmt(w == "break"      ? Stmt::Kind::kBreak
                           : w == "continue" ? Stmt::Kind::kContinue
                                             : Stmt::Kind::kDiscard);
        next();
        expect(";", "after " + w);
        return s;
      }
      if (w == "return") {
        auto s = make_stmt(Stmt::Kind::kReturn);
        next();
        if (!is(";")) s->expr = expression();
        expect(";", "after return");
        return s;
      }
      if (starts_declaration()) return declaration_statement();
    }
    auto s = make_stmt(Stmt::Kind::kExpr);
    s->expr = expression();
    expect(";", "after the expression");
    return s;
  }

  StmtPtr declaration_statement() {
    auto s = make_stmt(Stmt::Kind::kDecl);
    if (is_word("const")) {
      s->is_const = true;
      next();
    }
    s->type = type_spec();
    do {
      Declarator d;
      d.pos = peek().pos;
      d.name = identifier("a variable name");
      array_suffix(d.array_size, d.unsized);
      const bool array = d.unsized || d.array_size || s->type.unsized || s->type.array_size;
      if (accept("=")) d.init = initializer(s->type.name, array);
      s->names.push_back(std::move(d));
    } while (accept(","));
    expect(";", "after the declaration");
    return s;
  }

  ExprPtr paren_condition(std::string_view what) {
    expect("(", "after " + std::string(what));
    ExprPtr e = expression();
    expect(")", "after the condition");
    return e;
  }

  StmtPtr if_statement() {
    auto s = make_stmt(Stmt::Kind::kIf);
    next();
    s->cond = paren_condition("if");
    s->body.push_back(statement());
    if (is_word("else")) {
      next();
      s->body.push_back(statement());
    }
    return s;
  }

  StmtPtr for_statement() {
    auto s = make_stmt(Stmt::Kind::kFor);
    next();
    expect("(", "after for");
    StmtPtr init;
    if (accept(";")) {
      init = nullptr;
    } else if (starts_declaration()) {
      init = declaration_statement();
    } else {
      init = make_stmt(Stmt::Kind::kExpr);
      init->expr = expression();
      expect(";", "after the loop's first part");
    }
    if (!is(";")) s->cond = expression();
    expect(";", "after the loop's condition");
    if (!is(")")) s->step = expression();
    expect(")", "after the loop's step");
    s->body.push_back(statement());
    s->body.push_back(std::move(init));
    return s;
  }

  StmtPtr while_statement() {
    auto s = make_stmt(Stmt::Kind::kWhile);
    next();
    s->cond = paren_condition("while");
    s->body.push_back(statement());
    return s;
  }

  StmtPtr do_statement() {
    auto s = make_stmt(Stmt::Kind::kDo);
    next();
    s->body.push_back(statement());
    if (!is_word("while")) fail(peek().pos, "expected 'while' after the body of do");
    next();
    s->cond = paren_condition("while");
    expect(";", "after do ... while (...)");
    return s;
  }

  StmtPtr switch_statement() {
    const Pos p = peek().pos;
    fail(p, "switch is not supported yet; write it as if / else if");
  }

  // ---- expressions
  ExprPtr make(Expr::Kind k, Pos p) {
    auto e = std::make_unique<Expr>();
    e->kind = k;
    e->pos = p;
    return e;
  }

  // Attaches an operand. A node is one taller than its tallest operand, and
  // no tree may grow taller than kMaxDepth: a chain such as 1.0 + 1.0 + ...
  // nests to the left one node per operator, and an unbounded tree would
  // overflow the stack of the compiler and of the tree's own destruction.
  void add(Expr& e, ExprPtr operand) {
    e.height = std::max(e.height, operand->height + 1);
    if (e.height > kMaxDepth) fail(e.pos, "expressions or blocks nest more than 256 deep");
    e.args.push_back(std::move(operand));
  }

  ExprPtr expression() {
    ExprPtr e = assignment();
    while (is(",")) {
      const Pos p = next().pos;
      auto c = make(Expr::Kind::kComma, p);
      add(*c, std::move(e));
      add(*c, assignment());
      e = std::move(c);
    }
    return e;
  }

  static bool is_assign_op(const Token& t) {
    static const std::set<std::string> ops = {
        "=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="};
    return t.kind == Tok::kPunct && ops.count(t.text) > 0;
  }

  ExprPtr assignment() {
    ExprPtr lhs = ternary();
    if (!is_assign_op(peek())) return lhs;
    const Token& t = next();
    auto e = make(Expr::Kind::kAssign, t.pos);
    e->op = t.text;
    add(*e, std::move(lhs));
    add(*e, assignment());
    return e;
  }

  ExprPtr ternary() {
    ExprPtr c = binary(0);
    if (!is("?")) return c;
    const Pos p = next().pos;
    auto e = make(Expr::Kind::kTernary, p);
    add(*e, std::move(c));
    add(*e, assignment());
    expect(":", "in the conditional ?:");
    add(*e, assignment());
    return e;
  }

  bool at_level(size_t level) const {
    if (peek().kind != Tok::kPunct) return false;
    for (const std::string_view op : kLevels[level])
      if (!op.empty() && peek().text == op) return true;
    return false;
  }

  ExprPtr binary(size_t level) {
    if (level == kLevels.size()) return multiplicative();
    ExprPtr lhs = binary(level + 1);
    while (at_level(level)) {
      const Token& t = next();
      auto e = make(Expr::Kind::kBinary, t.pos);
      e->op = t.text;
      add(*e, std::move(lhs));
      add(*e, binary(level + 1));
      lhs = std::move(e);
    }
    return lhs;
  }

  ExprPtr multiplicative() {
    ExprPtr lhs = unary();
    while (is("*") || is("/") || is("%")) {
      const Token& t = next();
      auto e = make(Expr::Kind::kBinary, t.pos);
      e->op = t.text;
      add(*e, std::move(lhs));
      add(*e, unary());
      lhs = std::move(e);
    }
    return lhs;
  }

  // Nesting deeper than this is refused, so that no input can overflow
  // the stack of this recursive parser (or of the compiler after it).
  static constexpr int kMaxDepth = 256;
  struct Deeper {
    Parser& p;
    explicit Deeper(Parser& q) : p(q) {
      if (++p.depth_ > kMaxDepth) {
        --p.depth_;
        p.fail(p.peek().pos, "expressions or blocks nest more than 256 deep");
      }
    }
    ~Deeper() { --p.depth_; }
  };

  // `= value`, or a GLSL initializer list `= {a, b, ...}` (GLSL 4.20), read
  // as the declared type's constructor: T[](a, b, ...) for an array, T(a,
  // b, ...) otherwise. A list within an array's list is an element's.
  ExprPtr initializer(const std::string& type, bool array) {
    if (!is("{")) return assignment();
    const Deeper guard(*this);
    const Pos p = next().pos;
    auto e = make(Expr::Kind::kCall, p);
    e->name = type;
    if (array) {
      e->array_type = std::make_unique<TypeSpec>();
      e->array_type->name = type;
      e->array_type->pos = p;
      e->array_type->unsized = true;
    }
    while (!is("}")) {
      add(*e, initializer(type, false));
      if (!accept(",")) break;  // a comma may also end the list
    }
    expect("}", "to close the initializer list");
    return e;
  }

  ExprPtr unary() {
    const Deeper guard(*this);
    if (is("+") || is("-") || is("!") || is("~") || is("++") || is("--")) {
      const Token& t = next();
      auto e = make(Expr::Kind::kUnary, t.pos);
      e->op = t.text;
      add(*e, unary());
      return e;
    }
    return postfix(primary());
  }

  ExprPtr postfix(ExprPtr e) {
    for (;;) {
      if (is("[")) {
        const Pos p = next().pos;
        auto x = make(Expr::Kind::kIndex, p);
        add(*x, std::move(e));
        add(*x, expression());
        expect("]", "after the index");
        e = std::move(x);
      } else if (is(".")) {
        const Pos p = next().pos;
        auto x = make(Expr::Kind::kMember, p);
        x->name = identifier("a field or swizzle after '.'");
        add(*x, std::move(e));
        if (is("(")) {  // a method: only array.length() exists
          next();
          expect(")", "after " + x->name + "(");
          x->op = "()";
        }
        e = std::move(x);
      } else if (is("++") || is("--")) {
        const Token& t = next();
        auto x = make(Expr::Kind::kPostfix, t.pos);
        x->op = t.text;
        add(*x, std::move(e));
        e = std::move(x);
      } else {
        return e;
      }
    }
  }

  void call_arguments(Expr& call) {
    expect("(", "to open the arguments");
    if (is_word("void") && is(")", 1)) next();
    if (accept(")")) return;
    do call.args.push_back(assignment());
    while (accept(","));
    expect(")", "after the arguments");
  }

  ExprPtr primary() {
    const Token& t = peek();
    switch (t.kind) {
      case Tok::kInt:
      case Tok::kUint: {
        auto e = make(t.kind == Tok::kInt ? Expr::Kind::kInt : Expr::Kind::kUint, t.pos);
        e->integer = t.integer;
        e->name = t.text;
        next();
        return e;
      }
      case Tok::kFloat: {
        auto e = make(Expr::Kind::kFloat, t.pos);
        e->number = t.number;
        e->name = t.text;
        next();
        return e;
      }
      case Tok::kIdent:
        return name_or_call();
      default:
        break;
    }
    if (accept("(")) {
      ExprPtr e = expression();
      expect(")", "to close the parenthesis");
      return e;
    }
    fail(t.pos, "expected an expression, found " + describe(t));
  }

  ExprPtr name_or_call() {
    const Token& t = next();
    if (t.text == "true" || t.text == "false") {
      auto e = make(Expr::Kind::kBool, t.pos);
      e->integer = t.text == "true" ? 1 : 0;
      return e;
    }
    if (is_type_name(t) && is("[")) {  // an array constructor: float[3](...)
      auto e = make(Expr::Kind::kCall, t.pos);
      e->name = t.text;
      e->array_type = std::make_unique<TypeSpec>();
      e->array_type->name = t.text;
      e->array_type->pos = t.pos;
      next();
      if (accept("]")) {
        e->array_type->unsized = true;
      } else {
        e->array_type->array_size = expression();
        expect("]", "after the array size");
      }
      call_arguments(*e);
      return e;
    }
    if (is("(")) {
      auto e = make(Expr::Kind::kCall, t.pos);
      e->name = t.text;
      call_arguments(*e);
      return e;
    }
    auto e = make(Expr::Kind::kName, t.pos);
    e->name = t.text;
    return e;
  }

  static ExprPtr clone(const Expr& e) {
    auto c = std::make_unique<Expr>();
    c->kind = e.kind;
    c->pos = e.pos;
    c->name = e.name;
    c->op = e.op;
    c->number = e.number;
    c->integer = e.integer;
    c->height = e.height;
    for (const ExprPtr& a : e.args) c->args.push_back(clone(*a));
    return c;
  }

  const std::vector<Token>& t_;
  std::vector<ParseError>& errors_;
  size_t i_ = 0;
  int depth_ = 0;
  std::set<std::string> structs_;
};

}  // namespace

bool is_builtin_type(const std::string& name) {
  for (const std::string_view t : kTypeNames)
    if (t == name) return true;
  return false;
}

Unit parse(const std::vector<Token>& tokens, std::vector<ParseError>& errors) {
  return Parser(tokens, errors).run();
}

}  // namespace spritz::program
