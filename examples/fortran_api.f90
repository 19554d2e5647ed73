! fortran_api.f90: the fold API from Fortran (use fold).
!
! A Jacobi-like sweep repeated for a number of timesteps. Each timestep is
! the region "timestep"; the updates it makes are counted in the app-defined
! counter "updates", so folding shows the update rate over a timestep: a
! fast first half (a cheap stencil) and a slower second half (with a sqrt).
!
!   gfortran fold.f90 fortran_api.f90 -o fortran_api -lfold-stub
!   foldrun ./fortran_api          (or LD_PRELOAD=libfold.so ./fortran_api)
!   fold fold.fortran_api.*.trace -o report.html
!
! Argument: number of timesteps (default 200).
program fortran_api
  use fold
  implicit none
  integer, parameter :: n = 20000
  real(8) :: u(n), v(n)
  integer(c_int32_t) :: step_region, updates
  integer :: steps, it, i
  character(len=32) :: arg

  steps = 200
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) steps
  end if
  step_region = fold_region("timestep")
  updates = fold_counter("updates")
  u = 1.0d0
  v = 0.0d0
  do it = 1, steps
    call fold_enter(step_region)
    do i = 2, n - 1                       ! fast phase
      v(i) = 0.5d0 * (u(i - 1) + u(i + 1))
      if (mod(i, 1000) == 0) call fold_count(updates, 1000)
    end do
    do i = 2, n - 1                       ! slow phase
      u(i) = sqrt(abs(v(i)) + 1.0d0) * 0.7d0 + sqrt(abs(u(i)) + 2.0d0) * 0.3d0
      if (mod(i, 1000) == 0) call fold_count(updates, 1000_c_int64_t)
    end do
    call fold_exit(step_region)
  end do
  print '(a, f12.6)', 'checksum ', sum(u) / n
end program fortran_api
