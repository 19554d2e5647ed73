# The randomized truth bench on real runs (issue 30): a program that draws
# a region structure from a seed and records its own truth; truth-run.sh
# runs it under foldrun and truth_check.py compares fold's JSON with it.
add_executable(bench_truth_prog ${CMAKE_CURRENT_LIST_DIR}/truth-prog.c)
target_link_libraries(bench_truth_prog PRIVATE fold-stub m)
fold_warnings(bench_truth_prog)
