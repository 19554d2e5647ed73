# Runtime benchmarks (bench/runtime-*.sh drive them; figures in
# docs/performance.md under "Runtime").
add_executable(bench_runtime_deepstack ${CMAKE_CURRENT_LIST_DIR}/runtime-deepstack.c)
target_compile_options(bench_runtime_deepstack PRIVATE -O2 -g -fno-omit-frame-pointer -fno-optimize-sibling-calls)
fold_warnings(bench_runtime_deepstack)
find_package(Threads REQUIRED)
add_executable(bench_runtime_threads ${CMAKE_CURRENT_LIST_DIR}/runtime-threads.c)
target_link_libraries(bench_runtime_threads PRIVATE Threads::Threads)
fold_warnings(bench_runtime_threads)
