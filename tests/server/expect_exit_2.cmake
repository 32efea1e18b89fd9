# Runs PROGRAM with a stray argument ("stray", after a flag's value) and prints its stderr and
# exit status; the test's regular expression checks both. Usage:
#   cmake -DPROGRAM=path/to/program -P expect_exit_2.cmake
execute_process(COMMAND ${PROGRAM} --version stray
                RESULT_VARIABLE status ERROR_VARIABLE error OUTPUT_VARIABLE output)
message("${error}exit status ${status}")
