! crash.f90: a Fortran program that works ~300 ms, then dereferences a null
! pointer. libgfortran installs its backtrace handler with signal(): it
! prints "Program received signal SIGSEGV" and re-raises with SIG_DFL.
program crash
  implicit none
  integer, pointer :: p => null()
  real(8) :: x
  integer(8) :: i, c0, c, rate
  x = 1.0d0
  call system_clock(c0, rate)
  do
    do i = 1, 200000
      x = x * 0.9999999d0 + 1.0d-7
    end do
    call system_clock(c)
    if (real(c - c0, 8) / real(rate, 8) > 0.3d0) exit
  end do
  print '(a)', 'crashing'
  flush(6)
  if (x > 0) p = 1
  print *, p, x
end program crash
