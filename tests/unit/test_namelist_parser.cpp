// The namelist grammar alone: every syntax form RAMSES users write, and every syntax error.
// Schema-level checks (unknown keys, types, ranges) are in test_parameters.cpp.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/namelist_parser.hpp"

namespace kosmo::core {
namespace {

ParsedNamelist parse(const std::string& text) { return parse_namelist(text, "test.nml"); }

// By value: callers pass a temporary ParsedNamelist.
RawAssignment only_assignment(const ParsedNamelist& parsed) {
  EXPECT_EQ(parsed.blocks.size(), 1u);
  EXPECT_EQ(parsed.blocks.at(0).assignments.size(), 1u);
  return parsed.blocks.at(0).assignments.at(0);
}

// The message of the kosmo::Error thrown by parsing `text`, or "" (and a test failure) if none.
std::string parse_error(const std::string& text) {
  try {
    parse(text);
  } catch (const kosmo::Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "no kosmo::Error for:\n" << text;
  return "";
}

void expect_contains(const std::string& message, const std::vector<std::string>& fragments) {
  for (const std::string& fragment : fragments)
    EXPECT_NE(message.find(fragment), std::string::npos) << "'" << fragment << "' missing from: " << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << "message must be one line: " << message;
}

TEST(NamelistSyntax, BlockWithSlashAndFreeTextOutsideBlocks) {
  const ParsedNamelist parsed = parse(
      "This is a RAMSES run. Free text here is ignored, even 'quotes and = signs.\n"
      "&RUN_PARAMS\n"
      "verbose=.true.\n"
      "/\n"
      "more text between blocks, with ! and & in it\n"
      "&AMR_PARAMS levelmin=3 /\n"
      "trailing text\n");
  ASSERT_EQ(parsed.blocks.size(), 2u);
  EXPECT_EQ(parsed.blocks[0].name, "RUN_PARAMS");
  EXPECT_EQ(parsed.blocks[0].line, 2);
  EXPECT_EQ(parsed.blocks[1].name, "AMR_PARAMS");
  EXPECT_EQ(parsed.blocks[1].line, 6);
  EXPECT_EQ(parsed.blocks[1].assignments.at(0).key, "levelmin");
  EXPECT_EQ(parsed.blocks[1].assignments.at(0).values.at(0).text, "3");
}

TEST(NamelistSyntax, BlockEndedByAmpersandEnd) {
  const ParsedNamelist parsed = parse("&RUN_PARAMS\n nstepmax=10\n&END\n&AMR_PARAMS levelmax=2 &end\n");
  ASSERT_EQ(parsed.blocks.size(), 2u);
  EXPECT_EQ(parsed.blocks[0].assignments.at(0).values.at(0).text, "10");
  EXPECT_EQ(parsed.blocks[1].assignments.at(0).values.at(0).text, "2");
}

TEST(NamelistSyntax, NextBlockOnTheSameLineAfterSlash) {
  const ParsedNamelist parsed = parse("&RUN_PARAMS nstepmax=1 / &AMR_PARAMS levelmax=2 /\n");
  ASSERT_EQ(parsed.blocks.size(), 2u);
  EXPECT_EQ(parsed.blocks[1].name, "AMR_PARAMS");
}

TEST(NamelistSyntax, AmpersandInsideFreeTextLineDoesNotOpenABlock) {
  const ParsedNamelist parsed = parse("R&D run, see &AMR_PARAMS below\n&AMR_PARAMS levelmax=2 /\n");
  ASSERT_EQ(parsed.blocks.size(), 1u);
  EXPECT_EQ(parsed.blocks[0].line, 2);
}

TEST(NamelistSyntax, CommentsAreIgnoredButNotInsideStrings) {
  const ParsedNamelist parsed = parse(
      "! &RUN_PARAMS in a comment does not open a block\n"
      "&OUTPUT_PARAMS ! comment after the block name\n"
      "  title = 'a ! b'   ! the first ! is part of the string\n"
      "  noutput = 2 ! two outputs\n"
      "  ! tout = 9 commented out\n"
      "/\n");
  ASSERT_EQ(parsed.blocks.size(), 1u);
  const auto& a = parsed.blocks[0].assignments;
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[0].values.at(0).string_value, "a ! b");
  EXPECT_EQ(a[1].key, "noutput");
  ASSERT_EQ(a[1].values.size(), 1u);
}

TEST(NamelistSyntax, BlockAndKeyNamesAreCaseInsensitive) {
  const ParsedNamelist parsed = parse("&amr_Params\n  LevelMax = 7\n  BOXLEN=2.\n/\n");
  ASSERT_EQ(parsed.blocks.size(), 1u);
  EXPECT_EQ(parsed.blocks[0].name, "AMR_PARAMS");
  EXPECT_EQ(parsed.blocks[0].assignments.at(0).key, "levelmax");
  EXPECT_EQ(parsed.blocks[0].assignments.at(1).key, "boxlen");
}

TEST(NamelistSyntax, LogicalForms) {
  const std::vector<std::pair<std::string, bool>> forms = {
      {".true.", true}, {".false.", false}, {"T", true},      {"F", false},     {".t.", true}, {".f.", false},
      {"true", true},   {"false", false},   {".TRUE.", true}, {"False", false}, {"t", true},   {".F.", false}};
  for (const auto& [text, value] : forms) {
    const ParsedNamelist parsed = parse("&RUN_PARAMS verbose = " + text + " /");
    const ValueToken token = only_assignment(parsed).values.at(0);
    EXPECT_EQ(token.kind, TokenKind::Logical) << text;
    EXPECT_EQ(logical_token_value(token), value) << text;
  }
}

TEST(NamelistSyntax, QuotedStringsKeepCaseAndUndoDoubledQuotes) {
  const ParsedNamelist parsed = parse(
      "&RUN_PARAMS\n"
      "  a = 'Hilbert'\n"
      "  b = \"KSection\"\n"
      "  c = 'it''s'\n"
      "  d = \"say \"\"hi\"\"\"\n"
      "  e = \"it's\"\n"
      "  f = 'a/b, c=d'\n"
      "/\n");
  const auto& a = parsed.blocks.at(0).assignments;
  ASSERT_EQ(a.size(), 6u);
  EXPECT_EQ(a[0].values.at(0).kind, TokenKind::String);
  EXPECT_EQ(a[0].values.at(0).string_value, "Hilbert");
  EXPECT_EQ(a[1].values.at(0).string_value, "KSection");
  EXPECT_EQ(a[2].values.at(0).string_value, "it's");
  EXPECT_EQ(a[3].values.at(0).string_value, "say \"hi\"");
  EXPECT_EQ(a[4].values.at(0).string_value, "it's");
  EXPECT_EQ(a[5].values.at(0).string_value, "a/b, c=d");
}

TEST(NamelistSyntax, IntegerForms) {
  for (const std::string text : {"42", "-7", "+3", "0"}) {
    const ValueToken token = only_assignment(parse("&AMR_PARAMS levelmax=" + text + " /")).values.at(0);
    EXPECT_EQ(token.kind, TokenKind::Integer) << text;
    EXPECT_EQ(token.text, text);
  }
}

TEST(NamelistSyntax, RealForms) {
  for (const std::string text : {"1d-3", "1D+5", "1e5", "1.", ".5", "-2.5d0", "+1.5E-2", "3.0q0", "2.5"}) {
    const ValueToken token = only_assignment(parse("&AMR_PARAMS boxlen=" + text + " /")).values.at(0);
    EXPECT_EQ(token.kind, TokenKind::Real) << text;
    EXPECT_EQ(token.text, text);
  }
}

TEST(NamelistSyntax, BareWordIsNeitherNumberNorString) {
  for (const std::string text : {"abc", "hilbert", "1.2.3", "e5", "1e", "nan"}) {
    const ValueToken token = only_assignment(parse("&AMR_PARAMS boxlen=" + text + " /")).values.at(0);
    EXPECT_EQ(token.kind, TokenKind::Word) << text;
  }
}

TEST(NamelistSyntax, ArraysSeparatedByCommasAndBlanksAcrossLines) {
  const RawAssignment a =
      only_assignment(parse("&OUTPUT_PARAMS\n"
                            "  tout = 0.1, 0.2 0.3,\n"
                            "         0.4   ! comment inside the list\n"
                            "         ,0.5\n"
                            "/\n"));
  ASSERT_EQ(a.values.size(), 5u);
  const std::vector<std::string> expected = {"0.1", "0.2", "0.3", "0.4", "0.5"};
  for (std::size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(a.values[i].text, expected[i]);
  EXPECT_EQ(a.values[3].line, 3);
  EXPECT_EQ(a.values[4].line, 4);
}

TEST(NamelistSyntax, RepeatCounts) {
  const RawAssignment a = only_assignment(parse("&RUN_PARAMS nsubcycle=3*1,2 /"));
  ASSERT_EQ(a.values.size(), 2u);
  EXPECT_EQ(a.values[0].repeat, 3);
  EXPECT_EQ(a.values[0].text, "1");
  EXPECT_EQ(a.values[0].kind, TokenKind::Integer);
  EXPECT_EQ(a.values[1].repeat, 1);
  EXPECT_EQ(a.values[1].text, "2");
}

TEST(NamelistSyntax, RepeatCountOfStringsAndLogicals) {
  const ParsedNamelist parsed = parse("&INIT_PARAMS region_type=3*'x' /\n&RUN_PARAMS flags=2*.true. /");
  const ValueToken& s = parsed.blocks.at(0).assignments.at(0).values.at(0);
  EXPECT_EQ(s.kind, TokenKind::String);
  EXPECT_EQ(s.string_value, "x");
  EXPECT_EQ(s.repeat, 3);
  const ValueToken& l = parsed.blocks.at(1).assignments.at(0).values.at(0);
  EXPECT_EQ(l.kind, TokenKind::Logical);
  EXPECT_EQ(l.repeat, 2);
}

TEST(NamelistSyntax, RepeatedNulls) {
  const RawAssignment a = only_assignment(parse("&AMR_PARAMS nexpand=2*,5 /"));
  ASSERT_EQ(a.values.size(), 2u);
  EXPECT_EQ(a.values[0].kind, TokenKind::Null);
  EXPECT_EQ(a.values[0].repeat, 2);
  EXPECT_EQ(a.values[1].text, "5");
}

TEST(NamelistSyntax, IndexedAssignment) {
  const ParsedNamelist parsed =
      parse("&INIT_PARAMS region_type(2)='point' /\n&REFINE_PARAMS x_refine( 3 ) = 0.5,0.6 /");
  const RawAssignment& s = parsed.blocks.at(0).assignments.at(0);
  EXPECT_EQ(s.key, "region_type");
  ASSERT_EQ(s.subscripts.size(), 1u);
  EXPECT_EQ(s.subscripts[0].lower, 2);
  EXPECT_FALSE(s.subscripts[0].is_section);
  EXPECT_EQ(s.values.at(0).string_value, "point");
  const RawAssignment& r = parsed.blocks.at(1).assignments.at(0);
  ASSERT_EQ(r.subscripts.size(), 1u);
  EXPECT_EQ(r.subscripts[0].lower, 3);
  ASSERT_EQ(r.values.size(), 2u);
  EXPECT_EQ(r.values[1].text, "0.6");
}

TEST(NamelistSyntax, UnindexedAssignmentHasNoIndex) {
  EXPECT_TRUE(only_assignment(parse("&AMR_PARAMS levelmax=3 /")).subscripts.empty());
}

TEST(NamelistSyntax, MultipleSubscripts) {
  const RawAssignment a = only_assignment(parse("&SF_PARAMS group_csn( 2 , 1 )=0.5, 0.25 /"));
  EXPECT_EQ(a.key, "group_csn");
  ASSERT_EQ(a.subscripts.size(), 2u);
  EXPECT_EQ(a.subscripts[0].lower, 2);
  EXPECT_EQ(a.subscripts[1].lower, 1);
  EXPECT_FALSE(a.subscripts[1].is_section);
  ASSERT_EQ(a.values.size(), 2u);
  EXPECT_EQ(a.values[1].text, "0.25");
}

TEST(NamelistSyntax, SectionsWithOmittedBoundsAndStride) {
  const ParsedNamelist parsed = parse("&OUTPUT_PARAMS\ntout(2:4)=1,2,3\naout(:3)=0.1\nx(1:9:2, :)=1\ny(3:)=2 /");
  const std::vector<RawAssignment>& a = parsed.blocks.at(0).assignments;
  ASSERT_EQ(a.size(), 4u);
  ASSERT_EQ(a[0].subscripts.size(), 1u);
  EXPECT_TRUE(a[0].subscripts[0].is_section);
  EXPECT_EQ(a[0].subscripts[0].lower, 2);
  EXPECT_EQ(a[0].subscripts[0].upper, 4);
  EXPECT_EQ(a[0].subscripts[0].stride, 1);
  EXPECT_EQ(a[0].values.size(), 3u);
  EXPECT_FALSE(a[1].subscripts[0].lower.has_value());
  EXPECT_EQ(a[1].subscripts[0].upper, 3);
  ASSERT_EQ(a[2].subscripts.size(), 2u);
  EXPECT_EQ(a[2].subscripts[0].stride, 2);
  EXPECT_EQ(a[2].subscripts[0].upper, 9);
  EXPECT_TRUE(a[2].subscripts[1].is_section);
  EXPECT_FALSE(a[2].subscripts[1].lower.has_value());
  EXPECT_FALSE(a[2].subscripts[1].upper.has_value());
  EXPECT_EQ(a[3].subscripts[0].lower, 3);
  EXPECT_FALSE(a[3].subscripts[0].upper.has_value());
}

TEST(NamelistSyntax, CommentsExponentsAndProseBeforeTheFirstBlock) {
  const ParsedNamelist parsed = parse(
      "This namelist sets up a barotropic collapse.\n"
      "It can be run with: mpirun -np 4 ramses3d barotrop.nml\n\n"
      "&HYDRO_PARAMS ! the gas\n"
      "gamma=1.4d0 ! adiabatic index\n"
      "courant_factor=8D-1\n"
      "&end\n");
  ASSERT_EQ(parsed.blocks.size(), 1u);
  const std::vector<RawAssignment>& a = parsed.blocks[0].assignments;
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[0].values.at(0).kind, TokenKind::Real);
  EXPECT_EQ(a[1].values.at(0).text, "8D-1");
  EXPECT_EQ(parsed.blocks[0].line, 4);
}

TEST(NamelistSyntax, NullValuesBetweenCommas) {
  const RawAssignment a = only_assignment(parse("&REFINE_PARAMS r_refine=1,,3 /"));
  ASSERT_EQ(a.values.size(), 3u);
  EXPECT_EQ(a.values[0].text, "1");
  EXPECT_EQ(a.values[1].kind, TokenKind::Null);
  EXPECT_EQ(a.values[2].text, "3");
}

TEST(NamelistSyntax, LeadingCommaIsANullAndTrailingCommaIsNot) {
  const RawAssignment a = only_assignment(parse("&REFINE_PARAMS r_refine=,2, /"));
  ASSERT_EQ(a.values.size(), 2u);
  EXPECT_EQ(a.values[0].kind, TokenKind::Null);
  EXPECT_EQ(a.values[1].text, "2");
}

TEST(NamelistSyntax, KeyAssignedTwiceKeepsBothAssignmentsInOrder) {
  const ParsedNamelist parsed = parse("&AMR_PARAMS levelmax=3\nlevelmax=5 /");
  const auto& a = parsed.blocks.at(0).assignments;
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[0].values.at(0).text, "3");
  EXPECT_EQ(a[1].values.at(0).text, "5");
  EXPECT_EQ(a[1].line, 2);
}

TEST(NamelistSyntax, AssignmentsSeparatedByCommasSpacesOrNewlines) {
  for (const std::string body : {"levelmin=3, levelmax=7", "levelmin=3 levelmax=7", "levelmin=3\nlevelmax=7",
                                 "levelmin = 3 , levelmax = 7 ,", "levelmin=3,levelmax=7"}) {
    const ParsedNamelist parsed = parse("&AMR_PARAMS " + body + " /");
    const auto& a = parsed.blocks.at(0).assignments;
    ASSERT_EQ(a.size(), 2u) << body;
    EXPECT_EQ(a[0].key, "levelmin");
    ASSERT_EQ(a[0].values.size(), 1u) << body;
    EXPECT_EQ(a[0].values[0].text, "3");
    EXPECT_EQ(a[1].key, "levelmax");
    EXPECT_EQ(a[1].values.at(0).text, "7");
  }
}

TEST(NamelistSyntax, LogicalLetterKeyIsStillAKeyBeforeEquals) {
  const ParsedNamelist parsed = parse("&RUN_PARAMS a=T t=F /");
  const auto& a = parsed.blocks.at(0).assignments;
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[1].key, "t");
  EXPECT_FALSE(logical_token_value(a[1].values.at(0)));
}

// A bare name among values is a value (a type error later) unless a value follows it, in which
// case it reads as an assignment that lacks its '=' (see NamelistSyntaxError.MissingEquals).
TEST(NamelistSyntax, BareNameAmongValuesIsAValue) {
  const RawAssignment a = only_assignment(parse("&OUTPUT_PARAMS tout=1,2,x /"));
  ASSERT_EQ(a.values.size(), 3u);
  EXPECT_EQ(a.values[2].kind, TokenKind::Word);
  EXPECT_EQ(a.values[2].text, "x");
}

TEST(NamelistSyntax, WindowsLineEndingsTabsAndByteOrderMark) {
  const ParsedNamelist parsed = parse("\xEF\xBB\xBF&AMR_PARAMS\r\n\tlevelmax\t=\t7\r\n\tname = 'a'\r\n/\r\n");
  ASSERT_EQ(parsed.blocks.size(), 1u);
  const auto& a = parsed.blocks[0].assignments;
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[0].values.at(0).text, "7");
  EXPECT_EQ(a[1].values.at(0).string_value, "a");
  EXPECT_EQ(a[1].line, 3);
}

TEST(NamelistSyntax, EmptyValueListAndEmptyBlock) {
  const ParsedNamelist parsed = parse("&RUN_PARAMS\n/\n&AMR_PARAMS levelmax=\n/\n");
  ASSERT_EQ(parsed.blocks.size(), 2u);
  EXPECT_TRUE(parsed.blocks[0].assignments.empty());
  EXPECT_TRUE(parsed.blocks[1].assignments.at(0).values.empty());
}

TEST(NamelistSyntax, EmptyTextHasNoBlocks) {
  EXPECT_TRUE(parse("").blocks.empty());
  EXPECT_TRUE(parse("just text\n").blocks.empty());
}

TEST(NamelistSyntax, LineNumbersOfKeysAndValues) {
  const ParsedNamelist parsed = parse("\n\n&AMR_PARAMS\n\n  levelmax =\n   9\n/\n");
  const RawAssignment a = only_assignment(parsed);
  EXPECT_EQ(parsed.blocks[0].line, 3);
  EXPECT_EQ(a.line, 5);
  EXPECT_EQ(a.values.at(0).line, 6);
}

// ---- syntax errors: each names file, line, block and key ----

TEST(NamelistSyntaxError, UnterminatedString) {
  const std::string message = parse_error("&RUN_PARAMS\n  problem = 'sedov\n/\n");
  expect_contains(message, {"test.nml:2:", "&RUN_PARAMS", "'problem'", "unterminated string"});
}

TEST(NamelistSyntaxError, UnterminatedBlockAtEndOfFile) {
  const std::string message = parse_error("&RUN_PARAMS\n/\n&AMR_PARAMS\n  levelmin=3\n  levelmax=7\n");
  expect_contains(message, {"test.nml:3:", "&AMR_PARAMS", "not closed", "'levelmax'", "line 5"});
}

TEST(NamelistSyntaxError, BlockNotClosedBeforeTheNextBlock) {
  const std::string message = parse_error("&RUN_PARAMS\n  verbose=T\n&AMR_PARAMS levelmax=7 /\n");
  expect_contains(message, {"test.nml:1:", "&RUN_PARAMS", "not closed", "&AMR_PARAMS", "line 3"});
}

TEST(NamelistSyntaxError, MissingEquals) {
  const std::string message = parse_error("&AMR_PARAMS\n  levelmin=3\n  levelmax 7\n/\n");
  expect_contains(message, {"test.nml:3:", "&AMR_PARAMS", "missing '='", "'levelmax'"});
}

TEST(NamelistSyntaxError, MissingEqualsBeforeSlash) {
  expect_contains(parse_error("&AMR_PARAMS levelmax /"), {"test.nml:1:", "&AMR_PARAMS", "missing '='", "'levelmax'"});
}

TEST(NamelistSyntaxError, SameBlockTwiceNamesBothLines) {
  const std::string message = parse_error("&AMR_PARAMS levelmax=3 /\n\n&AMR_PARAMS levelmin=2 /\n");
  expect_contains(message, {"test.nml:3:", "&AMR_PARAMS", "twice", "lines 1 and 3"});
}

TEST(NamelistSyntaxError, SectionWithZeroStrideOrNoBounds) {
  expect_contains(parse_error("&OUTPUT_PARAMS\n tout(2:4:0)=1,2,3 /"),
                  {"test.nml:2:", "&OUTPUT_PARAMS", "zero stride", "'tout('"});
  expect_contains(parse_error("&OUTPUT_PARAMS\n tout(2,)=1 /"), {"test.nml:2:", "'tout(", "subscript"});
}

TEST(NamelistSyntaxError, EveryErrorIsReportedAndReadingResumes) {
  ParsedNamelist parsed = parse_namelist_keeping_errors(
      "&AMR_PARAMS\n levelmin 3\n levelmax=7\n/\n&OUTPUT_PARAMS\n tout(x)=1,\n   2, 3\n noutput=3\n"
      "&RUN_PARAMS hydro=.true. /\n",
      "test.nml");
  ASSERT_EQ(parsed.errors.size(), 3u);
  expect_contains(parsed.errors[0], {"test.nml:2:", "&AMR_PARAMS", "missing '='", "'levelmin'"});
  expect_contains(parsed.errors[1], {"test.nml:6:", "&OUTPUT_PARAMS", "'tout(", "subscript"});
  expect_contains(parsed.errors[2], {"test.nml:5:", "&OUTPUT_PARAMS", "not closed", "'&RUN_PARAMS'"});
  // What could be read is kept, so the schema checks it in the same pass.
  ASSERT_EQ(parsed.blocks.size(), 3u);
  EXPECT_EQ(parsed.blocks[0].assignments.at(0).key, "levelmax");
  ASSERT_EQ(parsed.blocks[1].assignments.size(), 1u);
  EXPECT_EQ(parsed.blocks[1].assignments[0].key, "noutput");
  EXPECT_EQ(parsed.blocks[2].name, "RUN_PARAMS");
}

TEST(NamelistSyntaxError, MalformedSubscript) {
  expect_contains(parse_error("&OUTPUT_PARAMS tout(x)=1 /"), {"test.nml:1:", "&OUTPUT_PARAMS", "'tout(", "subscript"});
  expect_contains(parse_error("&OUTPUT_PARAMS tout(3=1 /"), {"test.nml:1:", "&OUTPUT_PARAMS", "'tout(", "subscript"});
}

TEST(NamelistSyntaxError, RepeatCountMustBePositive) {
  expect_contains(parse_error("&AMR_PARAMS\nnexpand=0*1 /"),
                  {"test.nml:2:", "&AMR_PARAMS", "'nexpand'", "repeat count"});
}

TEST(NamelistSyntaxError, UnexpectedCharacterAmongValues) {
  expect_contains(parse_error("&AMR_PARAMS levelmax=3=4 /"), {"test.nml:1:", "&AMR_PARAMS", "'levelmax'", "'='"});
}

TEST(NamelistSyntaxError, ValueWithoutAParameterName) {
  expect_contains(parse_error("&AMR_PARAMS\n 5, levelmax=3 /"),
                  {"test.nml:2:", "&AMR_PARAMS", "expected a parameter name, found '5'"});
}

TEST(NamelistSyntaxError, MissingFile) {
  const std::string path = (std::filesystem::path(::testing::TempDir()) / "kosmo_no_such_file.nml").string();
  try {
    read_namelist_file(path);
    ADD_FAILURE() << "no error for a missing file";
  } catch (const kosmo::Error& e) {
    expect_contains(e.what(), {"cannot open namelist file", "kosmo_no_such_file.nml"});
  }
}

}  // namespace
}  // namespace kosmo::core
