add_executable(bench_trace_size ${CMAKE_CURRENT_LIST_DIR}/trace_size.c)
target_link_libraries(bench_trace_size PRIVATE fold_trace)
fold_warnings(bench_trace_size)
