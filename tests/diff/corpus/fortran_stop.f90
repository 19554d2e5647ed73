! fortran_stop: a Fortran program (gfortran) that computes and ends with
! STOP 3: libgfortran prints "STOP 3" on stderr and exits 3.
!
! diff: expect-status=exit 3
! diff: hostile=yes
program fortran_stop
  implicit none
  integer :: i
  double precision :: s
  s = 0d0
  do i = 1, 20000000
    s = s + dble(mod(i, 7))
  end do
  print '(a, f14.1)', 'sum ', s
  stop 3
end program fortran_stop
