# `kosmo check` on a namelist with three unknown keys in two blocks prints three problem lines in
# one run, each with file, line, block, key and a suggestion, and exits with 1. Usage:
#   cmake -DKOSMO=<kosmo binary> -DNAMELIST=<three_unknown_keys.nml> -P check_reports_every_problem.cmake
cmake_minimum_required(VERSION 3.20)
execute_process(COMMAND "${KOSMO}" check "${NAMELIST}" OUTPUT_VARIABLE output ERROR_VARIABLE errors
                RESULT_VARIABLE status)
if(NOT status EQUAL 1)
  message(FATAL_ERROR "kosmo check exited with ${status}, not 1:\n${output}${errors}")
endif()
foreach(expected
        "${NAMELIST}:5: &RUN_PARAMS: unknown parameter 'nstepmx' (did you mean 'nstepmax'?)"
        "${NAMELIST}:10: &AMR_PARAMS: unknown parameter 'levlmax' (did you mean 'levelmax'?)"
        "${NAMELIST}:11: &AMR_PARAMS: unknown parameter 'ngridmx' (did you mean 'ngridmax'?)"
        "${NAMELIST}: 3 problems; the run would stop before any work")
  string(FIND "${output}" "${expected}\n" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "missing line '${expected}' in:\n${output}${errors}")
  endif()
endforeach()
string(REGEX MATCHALL "\n?[^\n]*: &[A-Z_]+: " problem_lines "${output}")
list(LENGTH problem_lines count)
if(NOT count EQUAL 3)
  message(FATAL_ERROR "${count} problem lines, not 3:\n${output}")
endif()
