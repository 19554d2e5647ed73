! mpi_ring.f90: the MPI ring of mpi_ring.c in Fortran (use mpi).
!
! libfold.so wraps the Fortran bindings (mpi_allreduce_ and friends, which
! bypass the C MPI_ functions), so MPI calls and the bursts between them are
! regions exactly as in C.
!
!   mpifort -O2 -g mpi_ring.f90 -o mpi_ring_f
!   mpirun -np 2 foldrun ./mpi_ring_f
!   fold fold.mpi_ring_f.*.trace -o report.html
!
! Argument: iterations (default 200).
program mpi_ring_f
  use mpi
  implicit none
  integer :: ierr, rank, nranks, iters, it, i
  integer :: status(MPI_STATUS_SIZE)
  real(8) :: x, a, y, local, global, from, residual
  character(len=32) :: arg

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  iters = 200
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) iters
  end if
  x = rank
  residual = 0
  do it = 1, iters
    a = x
    y = x + 1
    do i = 1, 200000
      a = a * 0.999999d0 + 0.5d0
    end do
    do i = 1, 50000
      y = 1.0d0 + 1.0d0 / y
    end do
    local = a + y
    call MPI_Allreduce(local, global, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    call MPI_Sendrecv(global, 1, MPI_DOUBLE_PRECISION, mod(rank + 1, nranks), 0, &
                      from, 1, MPI_DOUBLE_PRECISION, mod(rank + nranks - 1, nranks), 0, &
                      MPI_COMM_WORLD, status, ierr)
    x = from * 1d-9
    residual = residual + global
  end do
  if (rank == 0) print '(i0, a, i0, a, es14.6)', nranks, ' ranks, ', iters, ' iterations, residual ', residual
  call MPI_Finalize(ierr)
end program mpi_ring_f
