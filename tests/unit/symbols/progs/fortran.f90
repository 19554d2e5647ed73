! fortran.f90: a gfortran module procedure, which must be shown as physics::step.
module physics
  implicit none
contains
  subroutine step(x, n)
    integer, intent(in) :: n
    real(8), intent(inout) :: x(n)
    integer :: i
    do i = 1, n
      x(i) = x(i) * 1.0001d0 + 0.5d0 ! @step_body
    end do
  end subroutine step
end module physics

program main
  use physics
  real(8) :: a(100)
  a = 1
  call step(a, 100)
  print *, a(1)
end program main
