// Recursive-descent reader for kosmo's own JSON files (see json_value.hpp).
#include "driver/json_value.hpp"

#include <cctype>
#include <cstdlib>

#include "core/error.hpp"

namespace kosmo::driver {
namespace {

class Reader {
 public:
  explicit Reader(std::string_view text) : text_(text) {}

  JsonValue document() {
    JsonValue value = read_value();
    skip_space();
    KOSMO_REQUIRE(at_ == text_.size(), "JSON: unexpected text after the value at offset " << at_);
    return value;
  }

 private:
  void skip_space() {
    while (at_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[at_]))) ++at_;
  }
  char peek() {
    skip_space();
    KOSMO_REQUIRE(at_ < text_.size(), "JSON: unexpected end of text");
    return text_[at_];
  }
  void expect(char c) {
    KOSMO_REQUIRE(peek() == c, "JSON: expected '" << c << "' at offset " << at_);
    ++at_;
  }
  bool take_word(std::string_view word) {
    if (text_.substr(at_, word.size()) != word) return false;
    at_ += word.size();
    return true;
  }

  JsonValue read_value() {
    const char c = peek();
    JsonValue value;
    if (c == '{') return read_object();
    if (c == '[') return read_array();
    if (c == '"') {
      value.kind = JsonValue::Kind::string;
      value.text = read_string();
    } else if (take_word("true")) {
      value.kind = JsonValue::Kind::boolean;
      value.boolean = true;
    } else if (take_word("false")) {
      value.kind = JsonValue::Kind::boolean;
    } else if (take_word("null")) {
      value.kind = JsonValue::Kind::null;
    } else {
      value.kind = JsonValue::Kind::number;
      const std::string rest(text_.substr(at_, 64));
      char* end = nullptr;
      value.number = std::strtod(rest.c_str(), &end);
      KOSMO_REQUIRE(end != rest.c_str(), "JSON: cannot read a value at offset " << at_);
      at_ += static_cast<std::size_t>(end - rest.c_str());
    }
    return value;
  }

  std::string read_string() {
    expect('"');
    std::string out;
    while (true) {
      KOSMO_REQUIRE(at_ < text_.size(), "JSON: unterminated string");
      const char c = text_[at_++];
      if (c == '"') return out;
      if (c == '\\') {
        KOSMO_REQUIRE(at_ < text_.size(), "JSON: unterminated string");
        const char e = text_[at_++];
        out += e == 'n' ? '\n' : e == 't' ? '\t' : e;
      } else {
        out += c;
      }
    }
  }

  JsonValue read_array() {
    JsonValue value;
    value.kind = JsonValue::Kind::array;
    expect('[');
    if (peek() == ']') {
      ++at_;
      return value;
    }
    while (true) {
      value.items.push_back(read_value());
      if (peek() == ']') {
        ++at_;
        return value;
      }
      expect(',');
    }
  }

  JsonValue read_object() {
    JsonValue value;
    value.kind = JsonValue::Kind::object;
    expect('{');
    if (peek() == '}') {
      ++at_;
      return value;
    }
    while (true) {
      std::string name = read_string();
      expect(':');
      value.members.emplace_back(std::move(name), read_value());
      if (peek() == '}') {
        ++at_;
        return value;
      }
      expect(',');
    }
  }

  std::string_view text_;
  std::size_t at_ = 0;
};

}  // namespace

bool JsonValue::has(std::string_view name) const {
  for (const auto& [key, member] : members)
    if (key == name) return true;
  return false;
}

const JsonValue& JsonValue::at(std::string_view name) const {
  KOSMO_REQUIRE(kind == Kind::object, "JSON: looked up '" << name << "' in a value that is not an object");
  for (const auto& [key, member] : members)
    if (key == name) return member;
  KOSMO_FAIL("JSON: no member '" << name << "'");
}

JsonValue parse_json(std::string_view text) { return Reader(text).document(); }

}  // namespace kosmo::driver
