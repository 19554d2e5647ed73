! prog_fortran.f90: gfortran -finstrument-functions and the `use fold` API.
! Calls: compute N times, each calling kernel 4 times; the API region
! "sweep" N times; the counter "cells" grows by 10 per kernel call.
module work
  implicit none
  real(8) :: acc = 0
contains
  subroutine kernel(i)
    integer, intent(in) :: i
    integer :: k
    do k = 1, 100
      acc = acc + sqrt(dble(i + k))
    end do
  end subroutine kernel

  subroutine compute(i, cells)
    use fold
    integer, intent(in) :: i
    integer(c_int32_t), intent(in) :: cells
    integer :: k
    do k = 1, 4
      call kernel(i + k)
      call fold_count(cells, 10)
    end do
  end subroutine compute
end module work

program prog_fortran
  use fold
  use work
  implicit none
  integer :: n, i
  integer(c_int32_t) :: sweep, cells
  character(len=16) :: arg
  n = 25
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) n
  end if
  sweep = fold_region("sweep")
  cells = fold_counter("cells")
  do i = 1, n
    call fold_enter(sweep)
    call compute(i, cells)
    call fold_exit(sweep)
  end do
  print '(a, f14.3)', 'acc ', acc
end program prog_fortran
