// Checking parsed namelist assignments against the schema, and the typed view of the result.
// Every error stops at the first problem with one line "file:line: &BLOCK: message about 'key'",
// so a user can fix the namelist without reading code (ARCHITECTURE §5).
#include "core/parameters.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <sstream>

#include "core/array_assignment.hpp"
#include "core/error.hpp"
#include "core/feature_gate.hpp"

namespace kosmo::core {
namespace {

constexpr const char* kOverrideSource = "(override)";

std::string where(const std::string& source, int line, const std::string& block) {
  return source + ":" + std::to_string(line) + ": &" + block + ": ";
}

std::string_view expected(ParameterType type) {
  switch (type) {
    case ParameterType::Integer: return "an integer";
    case ParameterType::Real: return "a real";
    case ParameterType::Logical: return "a logical (.true. or .false.)";
    case ParameterType::String: return "a quoted string";
  }
  return "?";
}

std::string getter_for(const ParameterSpec& spec) {
  switch (spec.type) {
    case ParameterType::Integer: return spec.is_array() ? "get_int_array" : "get_int";
    case ParameterType::Real: return spec.is_array() ? "get_real_array" : "get_real";
    case ParameterType::Logical: return "get_bool";
    case ParameterType::String: return "get_string";
  }
  return "?";
}

// Fortran exponent letters d and q mean e; from_chars refuses a leading '+'.
std::string c_number(std::string_view text, bool real) {
  if (!text.empty() && text[0] == '+') text.remove_prefix(1);
  std::string out(text);
  if (real)
    for (char& c : out)
      if (c == 'd' || c == 'D' || c == 'q' || c == 'Q') c = 'e';
  return out;
}

ParameterValue convert(const ParameterSpec& spec, const ValueToken& token, const std::string& at,
                       const std::string& what) {
  switch (spec.type) {
    case ParameterType::Integer:
      if (token.kind == TokenKind::Integer) {
        const std::string number = c_number(token.text, false);
        long long value = 0;
        const auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), value);
        KOSMO_REQUIRE(error == std::errc() && end == number.data() + number.size(),
                      at << "'" << what << "' = " << token.text << " does not fit in a 64-bit integer");
        return value;
      }
      break;
    case ParameterType::Real:
      if (token.kind == TokenKind::Integer || token.kind == TokenKind::Real) {
        const std::string number = c_number(token.text, true);
        double value = 0.0;
        const auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), value);
        KOSMO_REQUIRE(error == std::errc() && end == number.data() + number.size(),
                      at << "'" << what << "' = " << token.text << " is outside the range of a double");
        return value;
      }
      break;
    case ParameterType::Logical:
      if (token.kind == TokenKind::Logical) return logical_token_value(token);
      break;
    case ParameterType::String:
      if (token.kind == TokenKind::String) return token.string_value;
      if (token.kind == TokenKind::Word)
        KOSMO_FAIL(at << "'" << what << "' expects a quoted string, got " << token.text << " (write '" << token.text
                      << "')");
      break;
  }
  if (token.kind == TokenKind::String)
    KOSMO_FAIL(at << "'" << what << "' expects " << expected(spec.type) << ", got the string " << token.text);
  KOSMO_FAIL(at << "'" << what << "' expects " << expected(spec.type) << ", got '" << token.text << "'");
}

// A value RAMSES accepts for a feature kosmo does not implement yet: a "not implemented yet" line,
// not a wrong value.
struct NotImplementedValue : Error {
  using Error::Error;
};

// Nearest name by edit distance, if it is close enough to be a plausible typo: at most a third of
// the name's letters changed (one for short names), so `stellar` is not sent to `nstepmax`.
const std::string* nearest(const std::string& name, const std::vector<const std::string*>& candidates) {
  const std::string* best = nullptr;
  int best_distance = 0;
  for (const std::string* candidate : candidates) {
    const int d = edit_distance(name, *candidate);
    if (!best || d < best_distance) best = candidate, best_distance = d;
  }
  const int tolerance = std::max(1, static_cast<int>(name.size()) / 3);
  return best && best_distance <= tolerance ? best : nullptr;
}

std::string unknown_block_message(const RawBlock& block, const std::string& source) {
  std::vector<const std::string*> names;
  std::string known;
  for (const BlockSpec& b : schema_blocks()) names.push_back(&b.name), known += (known.empty() ? "&" : ", &") + b.name;
  for (const BlockSpec& b : unimplemented_blocks()) names.push_back(&b.name);
  const std::string at = where(source, block.line, block.name);
  if (const std::string* suggestion = nearest(block.name, names))
    return at + "unknown block &" + block.name + " (did you mean &" + *suggestion + "?)";
  return at + "unknown block &" + block.name + " (kosmo reads " + known + " and RAMSES' other blocks)";
}

std::string unknown_key_message(const RawBlock& block, const RawAssignment& assignment, const std::string& source) {
  const std::string at = where(source, assignment.line, block.name) + "unknown parameter '" + assignment.key + "'";
  const std::string& key = assignment.key;
  // A known key in the wrong block is sent to its block, before any spelling guess.
  for (const ParameterSpec& spec : parameter_schema())
    if (spec.name == key) return at + " in &" + block.name + ": '" + key + "' belongs to &" + spec.block;
  for (const IgnoredParameter& other : ignored_parameters())
    if (other.name == key) return at + " in &" + block.name + ": '" + key + "' belongs to &" + other.block;
  for (const UnimplementedParameter& other : unimplemented_parameters())
    if (other.name == key)
      return at + " in &" + block.name + ": '" + key + "' belongs to &" + other.block + " (" + other.feature +
             ", not implemented yet)";
  std::vector<const std::string*> names;
  std::string known;
  for (const ParameterSpec& spec : parameter_schema())
    if (spec.block == block.name) names.push_back(&spec.name), known += (known.empty() ? "" : ", ") + spec.name;
  for (const IgnoredParameter& other : ignored_parameters())
    if (other.block == block.name) names.push_back(&other.name);
  const std::size_t implemented = names.size();
  for (const UnimplementedParameter& other : unimplemented_parameters())
    if (other.block == block.name) names.push_back(&other.name);
  const std::string* suggestion = nearest(key, names);
  if (!suggestion)
    return at + (known.empty() ? std::string() : " (parameters of &" + block.name + ": " + known + ")");
  const bool pending =
      std::find(names.begin() + static_cast<long>(implemented), names.end(), suggestion) != names.end();
  return at + " (did you mean '" + *suggestion + "'?" + (pending ? " kosmo does not implement it yet" : "") + ")";
}

// The line of a "source:line: ..." message, for ordering problems by line.
int line_of(const std::string& message, const std::string& source) {
  if (message.compare(0, source.size() + 1, source + ":") != 0) return 0;
  int line = 0;
  std::from_chars(message.data() + source.size() + 1, message.data() + message.size(), line);
  return line;
}

}  // namespace

ParameterSet::ParameterSet() {
  for (const ParameterSpec& spec : parameter_schema()) {
    Entry entry;
    entry.spec = &spec;
    entry.values.assign(spec.is_array() ? static_cast<std::size_t>(spec.length) : 1u, spec.default_value);
    entries_.push_back(std::move(entry));
  }
}

ParameterSet ParameterSet::defaults() { return ParameterSet(); }

ParameterSet ParameterSet::from_file(const std::string& path) {
  ParameterSet set = defaults();
  set.source_ = path;
  set.load(read_namelist_file_keeping_errors(path), Origin::File);
  return set;
}

ParameterSet ParameterSet::from_text(const std::string& text, const std::string& source_name) {
  ParameterSet set = defaults();
  set.source_ = source_name;
  set.load(parse_namelist_keeping_errors(text, source_name), Origin::File);
  return set;
}

void ParameterSet::set_from_text(std::string_view block, std::string_view assignment) {
  std::string name(block);
  if (!name.empty() && name[0] == '&') name.erase(0, 1);
  KOSMO_REQUIRE(!name.empty() && std::isalpha(static_cast<unsigned char>(name[0])),
                "set_from_text: invalid block name '" << block << "'");
  const std::string text = "&" + name + " " + std::string(assignment) + "\n/\n";
  ParameterSet updated = *this;  // all-or-nothing: apply to a copy, keep it only when valid
  updated.load(parse_namelist_keeping_errors(text, kOverrideSource), Origin::Override);
  *this = std::move(updated);
}

// Every problem of the namelist, in line order, in one kosmo::Error (one line each). The
// cross-parameter checks run only when every value could be read and every key is known: a key
// that kept its default because its value was wrong or its name misspelled would make them report
// what is not in the file. Features not implemented do not touch the checked keys.
void ParameterSet::load(const ParsedNamelist& parsed, Origin origin) {
  std::vector<NamelistProblem> problems;
  for (const std::string& error : parsed.errors) problems.push_back({line_of(error, parsed.source), error});
  const ApplyOutcome outcome = apply(parsed, origin, problems);
  // The run checks (is there anything to run?) mean little when a feature that would run is missing
  // or a key meant to switch something on is misspelled: they run only on an otherwise clean file.
  const std::vector<ParameterCheck>& checks = parameter_catalogue().checks;
  const std::size_t last = problems.empty() && outcome.not_implemented == 0 ? checks.size()
                                                                            : parameter_catalogue().first_run_check;
  if (problems.size() == outcome.not_implemented)
    for (std::size_t c = 0; c < last; ++c) {
      const ParameterCheck check = checks[c];
      try {
        check(*this);
      } catch (const Error& e) {
        problems.push_back({line_of(e.what(), parsed.source), e.what()});
      }
    }
  if (problems.empty()) return;
  std::stable_sort(problems.begin(), problems.end(),
                   [](const NamelistProblem& a, const NamelistProblem& b) { return a.line < b.line; });
  std::string message;
  for (const NamelistProblem& problem : problems) message += (message.empty() ? "" : "\n") + problem.message;
  throw Error(message);
}

// Every problem of the assignments goes to `problems`: unknown blocks and keys, wrong values (type,
// range, shape) and features not implemented, which are counted apart (they do not touch the keys
// the cross-parameter checks read).
ParameterSet::ApplyOutcome ParameterSet::apply(const ParsedNamelist& parsed, Origin origin,
                                               std::vector<NamelistProblem>& problems) {
  FeatureGate gate(parsed);
  ApplyOutcome outcome;
  for (const RawBlock& block : parsed.blocks) {
    if (!find_block(block.name)) {
      if (const BlockSpec* unimplemented = find_unimplemented_block(block.name)) {
        for (const RawAssignment* unknown : gate.take_unimplemented_block(block, *unimplemented))
          problems.push_back({unknown->line, unknown_key_message(block, *unknown, parsed.source)});
      } else {
        problems.push_back({block.line, unknown_block_message(block, parsed.source)});
      }
      continue;
    }
    for (const RawAssignment& assignment : block.assignments) {
      const std::size_t i = index_of(block.name, assignment.key);
      if (i < entries_.size()) {
        try {
          assign(entries_[i], block, assignment, parsed.source, origin);
        } catch (const NotImplementedValue& e) {
          problems.push_back({assignment.line, e.what()});
          ++outcome.not_implemented;
        } catch (const Error& e) {
          problems.push_back({assignment.line, e.what()});
        }
      } else if (!gate.take_key(block, assignment)) {
        problems.push_back({assignment.line, unknown_key_message(block, assignment, parsed.source)});
      }
    }
  }
  for (const NamelistProblem& obstacle : gate.obstacles()) problems.push_back(obstacle);
  outcome.not_implemented += gate.obstacles().size();
  for (const std::string& key : gate.ignored())
    if (std::find(ignored_.begin(), ignored_.end(), key) == ignored_.end()) ignored_.push_back(key);
  return outcome;
}

// Fortran semantics: the values fill the elements named, in array element order (column-major); an
// element subscript `key(i,j)` takes the values from that element on in storage order (gfortran),
// a section `key(2:4)` only its own elements; a null leaves its element alone, and a later
// assignment to the same key overwrites only the elements it names.
void ParameterSet::assign(Entry& entry, const RawBlock& block, const RawAssignment& assignment,
                          const std::string& source, Origin origin) {
  const ParameterSpec& spec = *entry.spec;
  const std::string at = where(source, assignment.line, block.name);
  const AssignmentTargets targets = assignment_targets(spec, assignment, at);
  const auto available = static_cast<long long>(targets.elements.size());
  long long count = 0;
  for (const ValueToken& token : assignment.values) count += std::min(token.repeat, available + 1);
  if (!spec.is_array())
    KOSMO_REQUIRE(count <= 1, at << "'" << spec.name << "' is a scalar but was given " << count << " values");
  if (targets.section)
    KOSMO_REQUIRE(count <= available, at << "too many values for '" << targets.written << "': " << count
                                         << " values for a section of " << available << " elements");
  KOSMO_REQUIRE(count <= available, at << "too many values for '" << spec.name << "': " << count
                                       << " values from element " << spec.length - available + 1 << " on, but "
                                       << spec.name << " has " << spec.length << " elements");
  std::size_t next = 0;
  bool assigned = false;
  for (const ValueToken& token : assignment.values) {
    if (token.kind == TokenKind::Null) {
      next += static_cast<std::size_t>(token.repeat);
      continue;
    }
    const std::string token_at = where(source, token.line, block.name);
    const std::string what = element_name(spec, targets.elements[next]);
    const ParameterValue value = convert(spec, token, token_at, what);
    if (!value_allowed(spec, value))
      if (const UnimplementedValue* pending = find_unimplemented_value(spec.block, spec.name, value))
        throw NotImplementedValue(token_at + what + " = " + format_value(value) +
                                  ": not implemented yet: " + pending->feature);
    KOSMO_REQUIRE(value_allowed(spec, value),
                  token_at << "'" << what << "' = " << format_value(value)
                           << (spec.choices.empty() ? " is out of range: allowed " : " is not an allowed choice: ")
                           << describe_allowed(spec));
    for (long long r = 0; r < token.repeat; ++r) entry.values[static_cast<std::size_t>(targets.elements[next++])] = value;
    assigned = true;
  }
  if (assigned) {
    entry.origin = origin;
    entry.line = assignment.line;
  }
}

void ParameterSet::validate() const {
  for (const ParameterCheck check : parameter_catalogue().checks) check(*this);
}

std::string ParameterSet::location_of(std::string_view block, std::string_view name) const {
  const std::size_t i = index_of(block, name);
  KOSMO_REQUIRE(i < entries_.size(),
                "location_of(\"" << block << "\", \"" << name << "\"): no such parameter in kosmo's schema");
  return location(entries_[i]) + ": &" + entries_[i].spec->block + ": ";
}

bool ParameterSet::set_by_user(std::string_view block, std::string_view name) const {
  const std::size_t i = index_of(block, name);
  KOSMO_REQUIRE(i < entries_.size(),
                "set_by_user(\"" << block << "\", \"" << name << "\"): no such parameter in kosmo's schema");
  return entries_[i].origin != Origin::Default;
}

std::string ParameterSet::location(const Entry& entry) const {
  switch (entry.origin) {
    case Origin::File: return source_ + ":" + std::to_string(entry.line);
    case Origin::Override: return std::string(kOverrideSource) + ":" + std::to_string(entry.line);
    case Origin::Default: break;
  }
  return source_;
}

std::size_t ParameterSet::index_of(std::string_view block, std::string_view name) const {
  const ParameterSpec* spec = find_parameter(block, name);
  if (!spec) return entries_.size();
  // Entries follow the schema order, so the row number is the index.
  return static_cast<std::size_t>(spec - parameter_schema().data());
}

const ParameterSet::Entry& ParameterSet::entry(std::string_view block, std::string_view name, ParameterType type,
                                               bool array, std::string_view getter) const {
  const std::size_t i = index_of(block, name);
  KOSMO_REQUIRE(i < entries_.size(),
                getter << "(\"" << block << "\", \"" << name << "\"): no such parameter in kosmo's schema");
  const Entry& e = entries_[i];
  KOSMO_REQUIRE(e.spec->type == type && e.spec->is_array() == array,
                getter << "(\"" << block << "\", \"" << name << "\"): &" << e.spec->block << " " << e.spec->name
                       << " is " << (e.spec->is_array() ? "an array of " : "a ") << type_name(e.spec->type) << "; use "
                       << getter_for(*e.spec));
  return e;
}

long long ParameterSet::get_int(std::string_view block, std::string_view name) const {
  return std::get<long long>(entry(block, name, ParameterType::Integer, false, "get_int").values[0]);
}

double ParameterSet::get_real(std::string_view block, std::string_view name) const {
  return std::get<double>(entry(block, name, ParameterType::Real, false, "get_real").values[0]);
}

bool ParameterSet::get_bool(std::string_view block, std::string_view name) const {
  return std::get<bool>(entry(block, name, ParameterType::Logical, false, "get_bool").values[0]);
}

std::string ParameterSet::get_string(std::string_view block, std::string_view name) const {
  return std::get<std::string>(entry(block, name, ParameterType::String, false, "get_string").values[0]);
}

std::vector<long long> ParameterSet::get_int_array(std::string_view block, std::string_view name) const {
  std::vector<long long> out;
  for (const ParameterValue& v : entry(block, name, ParameterType::Integer, true, "get_int_array").values)
    out.push_back(std::get<long long>(v));
  return out;
}

std::vector<std::string> ParameterSet::get_string_array(std::string_view block, std::string_view name) const {
  std::vector<std::string> out;
  for (const ParameterValue& v : entry(block, name, ParameterType::String, true, "get_string_array").values)
    out.push_back(std::get<std::string>(v));
  return out;
}

std::vector<double> ParameterSet::get_real_array(std::string_view block, std::string_view name) const {
  std::vector<double> out;
  for (const ParameterValue& v : entry(block, name, ParameterType::Real, true, "get_real_array").values)
    out.push_back(std::get<double>(v));
  return out;
}

bool ParameterSet::from_file(std::string_view block, std::string_view name) const {
  const std::size_t i = index_of(block, name);
  KOSMO_REQUIRE(i < entries_.size(),
                "from_file(\"" << block << "\", \"" << name << "\"): no such parameter in kosmo's schema");
  return entries_[i].origin == Origin::File;
}

const std::string& ParameterSet::source() const { return source_; }

const std::vector<std::string>& ParameterSet::ignored_keys() const { return ignored_; }

std::string ParameterSet::ignored_summary() const {
  if (ignored_.empty()) return "";
  std::string out = "Accepted and ignored (no effect on kosmo's results):";
  for (std::size_t i = 0; i < ignored_.size(); ++i) out += (i ? ", " : " ") + ignored_[i];
  return out;
}

std::vector<ResolvedParameter> ParameterSet::resolved() const {
  std::vector<ResolvedParameter> out;
  for (const Entry& e : entries_)
    out.push_back({e.spec->block, e.spec->name,
                   e.spec->is_array() ? format_values(e.values) : format_value(e.values[0]), e.origin == Origin::File});
  return out;
}

std::string ParameterSet::to_namelist() const {
  std::ostringstream out;
  out << "! kosmo parameters resolved from " << source_ << "\n";
  const std::vector<ResolvedParameter> all = resolved();
  for (const BlockSpec& block : schema_blocks()) {
    out << "&" << block.name << "\n";
    for (const ResolvedParameter& p : all)
      if (p.block == block.name) out << "  " << p.name << " = " << p.value << "\n";
    out << "/\n";
  }
  return out.str();
}

std::string ParameterSet::summary() const {
  const std::vector<ResolvedParameter> all = resolved();
  std::size_t block_width = 5, name_width = 3;
  for (const ResolvedParameter& p : all) {
    block_width = std::max(block_width, p.block.size());
    name_width = std::max(name_width, p.name.size());
  }
  auto pad = [](const std::string& s, std::size_t width) { return s + std::string(width - s.size(), ' '); };
  std::ostringstream out;
  out << "Parameters from " << source_ << " (* set in the file, + overridden, blank = default)\n";
  out << "    " << pad("block", block_width) << "  " << pad("key", name_width) << "  value\n";
  for (std::size_t i = 0; i < all.size(); ++i) {
    const char mark = entries_[i].origin == Origin::File ? '*' : entries_[i].origin == Origin::Override ? '+' : ' ';
    out << "  " << mark << ' ' << pad(all[i].block, block_width) << "  " << pad(all[i].name, name_width) << "  "
        << all[i].value << "\n";
  }
  return out.str();
}

}  // namespace kosmo::core
