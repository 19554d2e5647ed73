# Region examples (docs/regions.md): Fortran with `use fold`, MPI in C and
# Fortran, OpenMP. Included by examples/CMakeLists.txt.

# The Fortran module: include/fold.f90 compiled into fold.mod for the examples
# and tests (users compile include/fold.f90 with their program).
if(CMAKE_Fortran_COMPILER)
  add_library(fold_fortran OBJECT ${PROJECT_SOURCE_DIR}/include/fold.f90)
  set_target_properties(fold_fortran PROPERTIES Fortran_MODULE_DIRECTORY ${CMAKE_BINARY_DIR}/include/fortran)
  target_include_directories(fold_fortran INTERFACE ${CMAKE_BINARY_DIR}/include/fortran)

  add_executable(fortran_api ${CMAKE_CURRENT_LIST_DIR}/fortran_api.f90)
  target_link_libraries(fortran_api PRIVATE fold_fortran fold-stub)
endif()

if(MPI_FOUND)
  add_executable(mpi_ring ${CMAKE_CURRENT_LIST_DIR}/mpi_ring.c)
  target_link_libraries(mpi_ring PRIVATE MPI::MPI_C)
  fold_warnings(mpi_ring)
endif()
if(CMAKE_Fortran_COMPILER)
  find_package(MPI COMPONENTS Fortran QUIET)
  if(MPI_Fortran_FOUND)
    add_executable(mpi_ring_f ${CMAKE_CURRENT_LIST_DIR}/mpi_ring.f90)
    target_link_libraries(mpi_ring_f PRIVATE MPI::MPI_Fortran)
  endif()
endif()

find_package(OpenMP COMPONENTS C QUIET)
if(OpenMP_C_FOUND)
  add_executable(openmp_stencil ${CMAKE_CURRENT_LIST_DIR}/openmp_stencil.c)
  target_link_libraries(openmp_stencil PRIVATE OpenMP::OpenMP_C)
  fold_warnings(openmp_stencil)
endif()

install(PROGRAMS ${CMAKE_CURRENT_LIST_DIR}/slurm-fold.sh DESTINATION ${FOLD_SHARE_DIR}/examples)
