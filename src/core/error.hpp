#pragma once
// One error path for the whole code (ARCHITECTURE §6): KOSMO_REQUIRE / KOSMO_FAIL throw
// kosmo::Error carrying a message that names its context; main() prints it once and exits non-zero.
#include <sstream>
#include <stdexcept>
#include <string>

namespace kosmo {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

// An error raised on every rank at once with the same message (parallel/collective_check.hpp):
// main() can then report it once and end every rank cleanly, without MPI_Abort.
class CollectiveError : public Error {
 public:
  explicit CollectiveError(const std::string& message) : Error(message) {}
};

}  // namespace kosmo

#define KOSMO_FAIL(message)                       \
  do {                                            \
    std::ostringstream kosmo_error_stream_;       \
    kosmo_error_stream_ << message;               \
    throw ::kosmo::Error(kosmo_error_stream_.str()); \
  } while (0)

#define KOSMO_REQUIRE(condition, message) \
  do {                                    \
    if (!(condition)) KOSMO_FAIL(message); \
  } while (0)
