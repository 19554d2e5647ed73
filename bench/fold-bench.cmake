# Folding engine benchmarks (src/fold): speed and fidelity. Need the synthetic
# trace generator from tests/tools.
if(FOLD_BUILD_TESTS) # fold_synth lives in tests/tools
  add_executable(fold-bench-speed ${CMAKE_CURRENT_LIST_DIR}/fold-speed.c)
  target_link_libraries(fold-bench-speed PRIVATE fold_analysis fold_synth)
  # times the analysis modules one by one: sees their private headers
  get_property(fold_private_dirs GLOBAL PROPERTY FOLD_ANALYSIS_PRIVATE_DIRS)
  target_include_directories(fold-bench-speed PRIVATE ${fold_private_dirs})
  fold_warnings(fold-bench-speed)
  add_executable(fold-bench-fidelity ${CMAKE_CURRENT_LIST_DIR}/fold-fidelity.c)
  target_link_libraries(fold-bench-fidelity PRIVATE fold_analysis fold_synth)
  fold_warnings(fold-bench-fidelity)
  # The randomized truth bench (tests/tools/truth_eval.h); its fixed-seed
  # ctest entry is truth_bench_smoke (tests/tools/CMakeLists.txt).
  add_executable(fold-bench-truth ${CMAKE_CURRENT_LIST_DIR}/truth-bench.c)
  target_link_libraries(fold-bench-truth PRIVATE fold_truth)
  fold_warnings(fold-bench-truth)
endif()

# A real 50 us region at 1 ms sampling with its truth (fold-short-region.sh).
add_executable(bench_fold_short_region ${CMAKE_CURRENT_LIST_DIR}/fold-short-region.c)
target_link_libraries(bench_fold_short_region PRIVATE fold-stub)
fold_warnings(bench_fold_short_region)
