#include "config.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <pugixml.hpp>
#include <string>

namespace spritz::import_detail {

namespace {

std::string trim(std::string_view s) {
  const size_t a = s.find_first_not_of(" \t\r\n");
  if (a == std::string_view::npos) return "";
  const size_t b = s.find_last_not_of(" \t\r\n");
  return std::string(s.substr(a, b - a + 1));
}

// The keys a particle file must have at least one of.
bool looks_like_particles(const Config& c) {
  return c.has("maxParticles") &&
         (c.has("particleLifespan") || c.has("emitterType") || c.has("speed"));
}

struct Parsed {
  pugi::xml_document doc;
  std::string_view text;
};

void parse_xml(Parsed& p, const std::string& source_name) {
  const pugi::xml_parse_result r =
      p.doc.load_buffer(p.text.data(), p.text.size(), pugi::parse_default | pugi::parse_ws_pcdata,
                        pugi::encoding_utf8);
  if (!r)
    throw Error(loc_at(p.text, static_cast<size_t>(std::max<ptrdiff_t>(0, r.offset)), source_name),
                std::string("malformed XML: ") + r.description());
}

// A .plist's root <dict>: <key> then its value, in turn.
void read_plist(const Parsed& p, Config& c) {
  const pugi::xml_node plist = p.doc.child("plist");
  const pugi::xml_node dict = plist.child("dict");
  if (!dict)
    throw Error(loc_at(p.text, static_cast<size_t>(plist.offset_debug()), c.source_name),
                "not a particle file: the plist has no root <dict>");
  c.root = loc_at(p.text, static_cast<size_t>(dict.offset_debug()), c.source_name);
  for (pugi::xml_node k = dict.first_child(); k; k = k.next_sibling()) {
    if (k.type() != pugi::node_element) continue;
    const SourceLoc at = loc_at(p.text, static_cast<size_t>(k.offset_debug()), c.source_name);
    if (std::string_view(k.name()) != "key")
      throw Error(at,
                  "expected a <key> in the plist's <dict>, found <" + printable(k.name()) + ">");
    pugi::xml_node v = k.next_sibling();
    while (v && v.type() != pugi::node_element) v = v.next_sibling();
    if (!v) throw Error(at, "key " + printable(k.child_value()) + " has no value");
    const std::string_view type = v.name();
    ConfigValue cv;
    cv.loc = loc_at(p.text, static_cast<size_t>(v.offset_debug()), c.source_name);
    if (type == "true" || type == "false") {
      cv.text = type == "true" ? "1" : "0";
    } else if (type == "real" || type == "integer" || type == "string") {
      cv.text = trim(v.child_value());
    } else if (type == "dict" || type == "array" || type == "data" || type == "date") {
      cv.text = "";  // not a particle key's type; read as nothing
    } else {
      throw Error(cv.loc, "unknown plist value type <" + printable(type) + ">");
    }
    c.values[trim(k.child_value())] = cv;
    k = v;
  }
}

// A .pex's <particleEmitterConfig>: one element per key, its value in
// attributes, renamed to the plist's keys.
void read_pex(const Parsed& p, Config& c) {
  const pugi::xml_node root = p.doc.child("particleEmitterConfig");
  c.root = loc_at(p.text, static_cast<size_t>(root.offset_debug()), c.source_name);
  const auto put = [&](const std::string& key, const pugi::xml_attribute& a, SourceLoc at) {
    if (a) c.values[key] = ConfigValue{trim(a.value()), at};
  };
  for (pugi::xml_node e = root.first_child(); e; e = e.next_sibling()) {
    if (e.type() != pugi::node_element) continue;
    const SourceLoc at = loc_at(p.text, static_cast<size_t>(e.offset_debug()), c.source_name);
    std::string name = e.name();
    if (name == "texture") {
      put("textureFileName", e.attribute("name"), at);
      put("textureImageData", e.attribute("data"), at);
    } else if (name == "sourcePosition" || name == "sourcePositionVariance" || name == "gravity") {
      put(name + "x", e.attribute("x"), at);
      put(name + "y", e.attribute("y"), at);
    } else if (name == "startColor" || name == "finishColor" || name == "startColorVariance" ||
               name == "finishColorVariance") {
      const bool var = name.find("Variance") != std::string::npos;
      const std::string base = var ? name.substr(0, name.size() - 8) : name;
      for (const char* ch : {"Red", "Green", "Blue", "Alpha"}) {
        std::string attr(ch);
        attr[0] = static_cast<char>(attr[0] - 'A' + 'a');
        put(base + (var ? "Variance" : "") + ch, e.attribute(attr.c_str()), at);
      }
    } else {
      // Starling's spellings win over the plist's, in either order ([ST]
      // parseConfig reads them first, the plist's only as a fallback).
      if (name == "particleLifeSpan") {
        name = "particleLifespan";
      } else if (name == "FinishParticleSizeVariance") {
        name = "finishParticleSizeVariance";
      } else if ((name == "particleLifespan" || name == "finishParticleSizeVariance") &&
                 c.has(name)) {
        continue;
      }
      put(name, e.attribute("value"), at);
    }
  }
}

}  // namespace

SourceLoc loc_at(std::string_view text, size_t offset, const std::string& source_name) {
  uint32_t line = 1, col = 1;
  size_t end = std::min(offset, text.size());
  // pugixml places an element at its name: the place is its '<'.
  if (end > 0 && text[end - 1] == '<') --end;
  for (size_t i = 0; i < end; ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) {
      ++col;
    }
  }
  return {source_name, line, col};
}

LineIndex::LineIndex(std::string_view text, std::string source_name)
    : text_(text), name_(std::move(source_name)) {
  starts_.push_back(0);
  for (size_t i = 0; i < text_.size(); ++i)
    if (text_[i] == '\n') starts_.push_back(i + 1);
}

SourceLoc LineIndex::at(size_t offset) const {
  offset = std::min(offset, text_.size());
  if (offset < at_) {
    const auto it = std::upper_bound(starts_.begin(), starts_.end(), offset) - 1;
    at_ = *it;
    line_ = static_cast<uint32_t>(it - starts_.begin() + 1);
    col_ = 1;
  }
  for (; at_ < offset; ++at_) {
    if (text_[at_] == '\n') {
      ++line_;
      col_ = 1;
    } else if ((static_cast<unsigned char>(text_[at_]) & 0xC0) != 0x80) {
      ++col_;
    }
  }
  return {name_, line_, col_};
}

const ConfigValue* Config::get(const std::string& key) const {
  const auto it = values.find(key);
  return it == values.end() ? nullptr : &it->second;
}

SourceLoc Config::loc(const std::string& key) const {
  const ConfigValue* v = get(key);
  return v ? v->loc : root;
}

double Config::number(const std::string& key, double fallback) const {
  const ConfigValue* v = get(key);
  if (!v || v->text.empty()) return fallback;
  const char* s = v->text.c_str();
  char* end = nullptr;
  errno = 0;
  const double d = std::strtod(s, &end);
  if (end == s || *end != '\0')
    throw Error(v->loc,
                key + " must be a number, got \"" + printable(v->text.substr(0, 40)) + "\"");
  if (!std::isfinite(d) || std::abs(d) > 1e9)
    throw Error(v->loc, key + " must be a finite number within [-1e9, 1e9], got " +
                            printable(v->text.substr(0, 40)));
  return d;
}

Config parse_config(std::string_view text, const std::string& source_name, EffectFormat format) {
  Parsed p;
  p.text = text;
  if (format == EffectFormat::kCocos2d) {
    const size_t end = text.find("</plist>");
    if (end != std::string_view::npos) p.text = text.substr(0, end + 8);
  }
  parse_xml(p, source_name);
  Config c;
  c.format = format;
  c.source_name = source_name;
  const pugi::xml_node top = p.doc.document_element();
  const std::string want = format == EffectFormat::kCocos2d ? "plist" : "particleEmitterConfig";
  if (want != top.name())
    throw Error(loc_at(p.text, static_cast<size_t>(top.offset_debug()), source_name),
                "not a " + std::string(format == EffectFormat::kCocos2d ? "plist" : "pex") +
                    " particle file: its root element is <" + printable(top.name()) + ">, not <" +
                    want + ">");
  if (format == EffectFormat::kCocos2d)
    read_plist(p, c);
  else
    read_pex(p, c);
  if (!looks_like_particles(c))
    throw Error(c.root,
                "not a particle file: it has no maxParticles with particleLifespan, "
                "emitterType or speed (the keys every Particle Designer effect has)");
  return c;
}

}  // namespace spritz::import_detail
