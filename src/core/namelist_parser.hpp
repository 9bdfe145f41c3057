#pragma once
// Fortran namelist text -> raw assignments, the way gfortran reads a RAMSES namelist file.
// This layer knows the syntax only: which blocks and keys exist, their types and ranges are the
// business of parameter_schema / ParameterSet, so the grammar can be tested on its own.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kosmo::core {

// Lexical form of one value item; the schema decides later whether the form fits the key.
enum class TokenKind {
  Null,     // empty slot between commas (`1,,3`) or `r*` alone: that element keeps its value
  Integer,  // 42, -7, +3
  Real,     // 1.5, 1., .5, 1e5, 1d-3, -2.5D0
  Logical,  // .true. .false. .t. .f. T F true false (any case)
  String,   // 'text' or "text"
  Word,     // anything else written bare (e.g. hilbert without quotes): always a type error
};

struct ValueToken {
  TokenKind kind = TokenKind::Null;
  std::string text;          // as written, without the repeat prefix; strings keep their quotes
  std::string string_value;  // String only: the content, with doubled quotes undone, case kept
  long long repeat = 1;      // r of an `r*value` item
  int line = 0;
};

// One subscript of `key(...)`, as written: `i` (an element), or a section triplet `lo:hi:stride`
// whose bounds may be omitted (`:`, `2:`, `:4`, `1:9:2`). Bounds are checked by the schema, which
// knows the extents.
struct Subscript {
  std::optional<long long> lower;  // i of an element; lo of a triplet when written
  std::optional<long long> upper;  // hi of a triplet when written; unused for an element
  long long stride = 1;            // of a triplet; never 0
  bool is_section = false;         // a triplet (contains ':')
};

struct RawAssignment {
  std::string key;                   // lower case
  std::vector<Subscript> subscripts; // of `key(i)`, `key(i,j)`, `key(2:4)`; empty for the whole variable
  std::vector<ValueToken> values;    // may be empty (`key =` followed by nothing)
  int line = 0;                      // line of the key
};

struct RawBlock {
  std::string name;                        // upper case, without the '&'
  int line = 0;                            // line of `&NAME`
  std::vector<RawAssignment> assignments;  // in file order; a repeated key appears twice
};

struct ParsedNamelist {
  std::string source;  // file name used in messages
  std::vector<RawBlock> blocks;
  // Syntax errors, one line each "source:line: &BLOCK: message", in file order. After an error the
  // reader resumes at the next line (or the next block), so one pass finds every independent one;
  // the assignment or block in error is left out of `blocks`.
  std::vector<std::string> errors;
};

// Parses namelist text, keeping every syntax error in `errors` (unterminated string or block,
// missing '=', bad subscript, block repeated in the file, ...).
ParsedNamelist parse_namelist_keeping_errors(std::string_view text, std::string_view source_name);
// The same, but throws kosmo::Error with the errors, one per line, when there is any.
ParsedNamelist parse_namelist(std::string_view text, std::string_view source_name);

// Reads and parses a file; the path as given is the source name in messages. A file that cannot
// be read throws; syntax errors are kept (first form) or thrown (second).
ParsedNamelist read_namelist_file_keeping_errors(const std::string& path);
ParsedNamelist read_namelist_file(const std::string& path);

// Value of a TokenKind::Logical token.
bool logical_token_value(const ValueToken& token);

}  // namespace kosmo::core
