# Region benchmarks (bench/regions-*.sh drive them; figures in
# docs/performance.md under "Regions").
add_executable(bench_regions_hooks ${CMAKE_CURRENT_LIST_DIR}/regions-hooks.c)
target_compile_options(bench_regions_hooks PRIVATE -O2 -finstrument-functions)
fold_warnings(bench_regions_hooks)
