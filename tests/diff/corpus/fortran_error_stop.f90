! fortran_error_stop: a Fortran program (gfortran) that ends with ERROR STOP
! 5 after writing a file: libgfortran prints "ERROR STOP 5" and exits 5.
!
! diff: expect-status=exit 5
! diff: normalize=addrs
program fortran_error_stop
  implicit none
  integer :: i
  double precision :: s
  open(unit=10, file='result.txt', status='replace')
  s = 0d0
  do i = 1, 20000000
    s = s + dble(mod(i, 5))
  end do
  write(10, '(f14.1)') s
  close(10)
  error stop 5
end program fortran_error_stop
