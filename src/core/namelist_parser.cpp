// Hand-written scanner for Fortran namelist input (list-directed rules of Fortran 2008 §10.11, as
// gfortran applies them), so that every RAMSES namelist reads the same way here as in RAMSES.
#include "core/namelist_parser.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/error.hpp"

namespace kosmo::core {
namespace {

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }
bool is_space(char c) { return is_blank(c) || c == '\n'; }
bool is_name_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; }
bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_quote(char c) { return c == '\'' || c == '"'; }
// Characters that end a bare value word; '*' is not one of them so that `3*1` stays one item.
bool ends_word(char c) {
  return c == '\0' || is_space(c) || std::string_view(",/=()'\"!&$").find(c) != std::string_view::npos;
}

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string upper(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return out;
}

bool all_digits(std::string_view s) { return !s.empty() && std::all_of(s.begin(), s.end(), is_digit); }

bool is_identifier(std::string_view s) {
  return !s.empty() && is_name_start(s[0]) && std::all_of(s.begin(), s.end(), is_name_char);
}

bool is_logical_literal(std::string_view s) {
  const std::string l = lower(s);
  return l == ".true." || l == ".false." || l == ".t." || l == ".f." || l == "t" || l == "f" || l == "true" ||
         l == "false";
}

bool is_integer_literal(std::string_view s) {
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) s.remove_prefix(1);
  return all_digits(s);
}

// [+-] (digits [. digits] | . digits) [exponent letter e/d/q [+-] digits], with a '.' or an exponent.
bool is_real_literal(std::string_view s) {
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) s.remove_prefix(1);
  std::size_t i = 0;
  std::size_t mantissa_digits = 0;
  while (i < s.size() && is_digit(s[i])) ++i, ++mantissa_digits;
  bool has_point = false;
  if (i < s.size() && s[i] == '.') {
    has_point = true;
    ++i;
    while (i < s.size() && is_digit(s[i])) ++i, ++mantissa_digits;
  }
  if (mantissa_digits == 0) return false;
  if (i == s.size()) return has_point;
  if (std::string_view("eEdDqQ").find(s[i]) == std::string_view::npos) return false;
  ++i;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  return all_digits(s.substr(i));
}

TokenKind classify(std::string_view word) {
  if (is_logical_literal(word)) return TokenKind::Logical;
  if (is_integer_literal(word)) return TokenKind::Integer;
  if (is_real_literal(word)) return TokenKind::Real;
  return TokenKind::Word;
}

class NamelistReader {
 public:
  NamelistReader(std::string_view text, std::string_view source) : text_(text) { result_.source = std::string(source); }

  ParsedNamelist read() {
    // Outside blocks everything is free text, except that a line whose first non-blank character
    // is '&' opens a block (so a stray '&' or quote inside a comment paragraph is harmless).
    bool line_start = true;
    while (!at_end()) {
      const char c = peek();
      if (c == '\n') {
        advance();
        line_start = true;
      } else if (is_blank(c)) {
        advance();
      } else if (line_start && (c == '&' || c == '$') && is_name_start(peek(1))) {
        const int line = line_;
        advance();
        const std::string name = upper(read_name());
        if (name == "END") continue;  // a stray terminator outside any block
        RawBlock block;
        block.name = name;
        block.line = line;
        const RawBlock* other = find_block(name);
        if (other)
          record(line, name,
                 "block appears twice in the file, at lines " + std::to_string(other->line) + " and " +
                     std::to_string(line) + "; merge them into one");
        read_block(block);
        // An unclosed block still goes to the schema, so that its keys are checked in the same pass.
        if (!other) result_.blocks.push_back(std::move(block));
        line_start = true;  // `/ &NEXT_BLOCK` on one line is fine
      } else {
        line_start = false;
        skip_rest_of_line();
      }
    }
    return std::move(result_);
  }

 private:
  bool at_end() const { return pos_ >= text_.size(); }
  char peek(std::size_t ahead = 0) const { return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0'; }
  void advance() {
    if (text_[pos_] == '\n') ++line_;
    ++pos_;
  }
  void skip_rest_of_line() {
    while (!at_end() && peek() != '\n') ++pos_;
  }
  // After a syntax error: drop the rest of the line and the continuation lines of the same values,
  // so that one mistake is one message; reading resumes at a line that starts like an assignment,
  // a terminator or another block.
  void skip_to_next_assignment_line() {
    skip_rest_of_line_up_to_terminator();
    if (peek() == '/') return;
    while (!at_end()) {
      std::size_t ahead = 1;
      while (is_blank(peek(ahead))) ++ahead;
      const char first = peek(ahead);
      const bool continuation = is_digit(first) || is_quote(first) || first == ',' || first == '+' || first == '-' ||
                                first == '.';
      if (!continuation) return;
      advance();  // the '\n'
      skip_rest_of_line_up_to_terminator();
      if (peek() == '/') return;
    }
  }
  // Skips to the end of the line or to a '/' outside quotes and comments, the block's terminator.
  void skip_rest_of_line_up_to_terminator() {
    char quote = '\0';
    while (!at_end() && peek() != '\n') {
      const char c = peek();
      if (quote) {
        if (c == quote) quote = '\0';
      } else if (is_quote(c)) {
        quote = c;
      } else if (c == '!') {
        skip_rest_of_line();
        return;
      } else if (c == '/') {
        return;
      }
      ++pos_;
    }
  }
  void skip_space_and_comments() {
    while (!at_end()) {
      if (is_space(peek())) {
        advance();
      } else if (peek() == '!') {
        skip_rest_of_line();
      } else {
        break;
      }
    }
  }
  std::string read_name() {
    const std::size_t start = pos_;
    while (!at_end() && is_name_char(peek())) ++pos_;
    return std::string(text_.substr(start, pos_ - start));
  }
  std::string read_word() {
    const std::size_t start = pos_;
    while (!ends_word(peek())) ++pos_;
    return std::string(text_.substr(start, pos_ - start));
  }

  const RawBlock* find_block(const std::string& name) const {
    for (const RawBlock& block : result_.blocks)
      if (block.name == name) return &block;
    return nullptr;
  }

  // An error inside an assignment: caught by read_block(), which records it and resumes.
  struct SyntaxError {
    int line;
    std::string message;
  };
  [[noreturn]] void fail(int line, const std::string&, const std::string& message) const {
    throw SyntaxError{line, message};
  }
  void record(int line, const std::string& block, const std::string& message) {
    result_.errors.push_back(result_.source + ':' + std::to_string(line) + ": &" + block + ": " + message);
  }

  // Reads the block's assignments up to its terminator, the end of the file or another block's
  // '&' (then left there, so read() opens that block next; both are recorded as errors). An error
  // in one assignment is recorded and reading resumes on the next line.
  void read_block(RawBlock& block) {
    while (true) {
      try {
        if (read_block_item(block)) return;
      } catch (const SyntaxError& error) {
        record(error.line, block.name, error.message);
        skip_to_next_assignment_line();
      }
    }
  }

  // One step of a block; true when the block has ended (closed or not).
  bool read_block_item(RawBlock& block) {
    skip_space_and_comments();
    if (at_end()) {
      std::string message = "block opened at line " + std::to_string(block.line) +
                            " is not closed: the file ends before its terminating '/'";
      if (!block.assignments.empty()) {
        const RawAssignment& last = block.assignments.back();
        message += " (last parameter '" + last.key + "' at line " + std::to_string(last.line) + ")";
      }
      record(block.line, block.name, message);
      return true;
    }
    const char c = peek();
    if (c == '/') {
      advance();
      return true;
    }
    if (c == ',') {  // separators between assignments carry no meaning
      advance();
      return false;
    }
    if (c == '&' || c == '$') {
      const std::size_t start = pos_;
      const int line = line_;
      advance();
      const std::string name = upper(read_name());
      if (name == "END") return true;
      record(block.line, block.name,
             "block opened at line " + std::to_string(block.line) + " is not closed: found '&" + name +
                 "' at line " + std::to_string(line) + " before its terminating '/'");
      pos_ = start;
      return true;
    }
    if (is_name_start(c)) {
      read_assignment(block);
      return false;
    }
    std::string message = "expected a parameter name, found '" + read_snippet() + "'";
    if (!block.assignments.empty()) message += " after parameter '" + block.assignments.back().key + "'";
    fail(line_, block.name, message);
  }

  std::string read_snippet() {
    std::string word = read_word();
    return word.empty() ? std::string(1, peek()) : word;
  }

  // An optionally signed integer of a subscript, or nullopt when none is written here.
  std::optional<long long> read_subscript_number(const RawBlock& block, const std::string& key) {
    while (is_blank(peek())) advance();
    const std::size_t start = pos_;
    if (peek() == '+' || peek() == '-') ++pos_;
    while (is_digit(peek())) ++pos_;
    const std::string_view number = text_.substr(start, pos_ - start);
    while (is_blank(peek())) advance();
    if (number.empty()) return std::nullopt;
    if (!is_integer_literal(number))
      fail(line_, block.name, "malformed subscript in '" + key + "(': expected an integer, found '" +
                                  std::string(number) + "'");
    long long value = 0;
    const char* first = number.data() + (number[0] == '+' ? 1 : 0);
    const auto [end, error] = std::from_chars(first, number.data() + number.size(), value);
    if (error != std::errc() || end != number.data() + number.size())
      fail(line_, block.name, "subscript of '" + key + "' is too large: " + std::string(number));
    return value;
  }

  // After `key(`: comma-separated subscripts `i` or `lo:hi[:stride]` up to ')'.
  std::vector<Subscript> read_subscripts(const RawBlock& block, const std::string& key) {
    std::vector<Subscript> subscripts;
    const std::string malformed = "malformed subscript in '" + key + "(': expected integers, ':' and ',' then ')'";
    while (true) {
      Subscript subscript;
      subscript.lower = read_subscript_number(block, key);
      if (peek() == ':') {
        advance();
        subscript.is_section = true;
        subscript.upper = read_subscript_number(block, key);
        if (peek() == ':') {
          advance();
          const std::optional<long long> stride = read_subscript_number(block, key);
          if (!stride) fail(line_, block.name, malformed);
          if (*stride == 0) fail(line_, block.name, "zero stride in the section of '" + key + "('");
          subscript.stride = *stride;
        }
      } else if (!subscript.lower) {
        fail(line_, block.name, malformed);
      }
      subscripts.push_back(subscript);
      if (peek() == ',') {
        advance();
        continue;
      }
      if (peek() != ')') fail(line_, block.name, malformed);
      advance();
      return subscripts;
    }
  }

  void read_assignment(RawBlock& block) {
    RawAssignment assignment;
    assignment.line = line_;
    assignment.key = lower(read_name());
    const std::string& key = assignment.key;
    skip_space_and_comments();
    if (peek() == '(') {
      advance();
      assignment.subscripts = read_subscripts(block, key);
      skip_space_and_comments();
    }
    if (peek() != '=') {
      fail(assignment.line, block.name,
           "missing '=' after '" + key + "' (a namelist assignment reads " + key + " = value)");
    }
    advance();
    read_values(block, assignment);
    block.assignments.push_back(std::move(assignment));
  }

  // Values run until the next `name =` / `name(`, the block terminator, or the end of the text.
  void read_values(const RawBlock& block, RawAssignment& assignment) {
    bool after_comma = false;  // a second comma in a row, or one right after '=', is a null value
    auto push_null = [&](long long repeat, int line) {
      ValueToken null_token;
      null_token.repeat = repeat;
      null_token.line = line;
      assignment.values.push_back(std::move(null_token));
    };
    while (true) {
      skip_space_and_comments();
      if (at_end()) return;
      const char c = peek();
      if (c == '/' || c == '&' || c == '$') return;
      if (c == ',') {
        if (after_comma || assignment.values.empty()) push_null(1, line_);
        advance();
        after_comma = true;
        continue;
      }
      after_comma = false;
      if (is_quote(c)) {
        assignment.values.push_back(read_string(block, assignment.key, 1));
        continue;
      }
      if (c == '=' || c == '(' || c == ')')
        fail(line_, block.name, std::string("unexpected '") + c + "' in the values of '" + assignment.key + "'");
      const std::size_t start = pos_;
      const int line = line_;
      const std::string word = read_word();
      if (is_identifier(word)) {
        // A name followed by '=' or '(' starts the next assignment. A name followed by a value,
        // once this key has one, is read as an assignment missing its '=' (`levelmin=3 levelmax 7`);
        // anywhere else a bare name is a value, reported later as a type error (`tout=1,2,x`).
        skip_space_and_comments();
        const char next = peek();
        const bool value_follows = is_digit(next) || is_quote(next) || next == '+' || next == '-' || next == '.';
        const bool next_key =
            next == '=' || next == '(' || (!assignment.values.empty() && !is_logical_literal(word) && value_follows);
        pos_ = start;
        line_ = line;
        if (next_key) return;
        pos_ += word.size();
      }
      long long repeat = 1;
      std::string body = word;
      const std::size_t star = word.find('*');
      if (star != std::string::npos && all_digits(std::string_view(word).substr(0, star))) {
        const auto [end, error] = std::from_chars(word.data(), word.data() + star, repeat);
        if (error != std::errc() || end != word.data() + star || repeat < 1)
          fail(line, block.name,
               "repeat count in '" + word + "' for '" + assignment.key + "' must be a positive integer");
        body = word.substr(star + 1);
        if (body.empty()) {
          if (is_quote(peek())) {
            assignment.values.push_back(read_string(block, assignment.key, repeat));
          } else {
            push_null(repeat, line);  // `r*` alone: r null values
          }
          continue;
        }
      }
      ValueToken token;
      token.kind = classify(body);
      token.text = body;
      token.repeat = repeat;
      token.line = line;
      assignment.values.push_back(std::move(token));
    }
  }

  // Strings must close on their own line: a forgotten quote is then reported where it happened
  // instead of swallowing the rest of the file.
  ValueToken read_string(const RawBlock& block, const std::string& key, long long repeat) {
    ValueToken token;
    token.kind = TokenKind::String;
    token.repeat = repeat;
    token.line = line_;
    const char quote = peek();
    const std::size_t start = pos_;
    advance();
    while (true) {
      if (at_end() || peek() == '\n')
        fail(token.line, block.name,
             "unterminated string for '" + key + "': the " + (quote == '\'' ? "'" : "\"") +
                 " opened on this line is not closed before the end of the line");
      const char c = peek();
      advance();
      if (c != quote) {
        token.string_value += c;
      } else if (peek() == quote) {  // doubled quote = one literal quote
        token.string_value += c;
        advance();
      } else {
        break;
      }
    }
    token.text = std::string(text_.substr(start, pos_ - start));
    return token;
  }

  std::string_view text_;
  std::size_t pos_ = 0;
  int line_ = 1;
  ParsedNamelist result_;
};

}  // namespace

ParsedNamelist parse_namelist_keeping_errors(std::string_view text, std::string_view source_name) {
  // A UTF-8 byte-order mark would hide a block that opens on the first line.
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  return NamelistReader(text, source_name).read();
}

namespace {
ParsedNamelist throw_errors(ParsedNamelist parsed) {
  if (parsed.errors.empty()) return parsed;
  std::string message;
  for (const std::string& error : parsed.errors) message += (message.empty() ? "" : "\n") + error;
  throw Error(message);
}
}  // namespace

ParsedNamelist parse_namelist(std::string_view text, std::string_view source_name) {
  return throw_errors(parse_namelist_keeping_errors(text, source_name));
}

ParsedNamelist read_namelist_file(const std::string& path) {
  return throw_errors(read_namelist_file_keeping_errors(path));
}

ParsedNamelist read_namelist_file_keeping_errors(const std::string& path) {
  std::error_code ignored;
  KOSMO_REQUIRE(!std::filesystem::is_directory(path, ignored),
                "cannot open namelist file '" << path << "': it is a directory");
  std::ifstream in(path, std::ios::binary);
  KOSMO_REQUIRE(in.is_open(), "cannot open namelist file '" << path << "'");
  std::ostringstream contents;
  contents << in.rdbuf();
  KOSMO_REQUIRE(!in.bad(), "cannot read namelist file '" << path << "'");
  return parse_namelist_keeping_errors(contents.str(), path);
}

bool logical_token_value(const ValueToken& token) {
  const std::string l = lower(token.text);
  const char first = l.empty() ? 'f' : (l[0] == '.' && l.size() > 1 ? l[1] : l[0]);
  return first == 't';
}

}  // namespace kosmo::core
