! fold.f90: the fold API for Fortran (use fold), over include/fold.h.
!
! Compile this file with your program (or into a library) and link against
! libfold-stub (-lfold-stub): the program then runs unchanged without fold,
! and is measured when libfold.so is preloaded (foldrun ./app).
!
!   use fold
!   integer(c_int32_t) :: solve, iters
!   solve = fold_region("solve")           ! register once
!   iters = fold_counter("iterations")     ! an app-defined counter
!   call fold_enter(solve)
!   call fold_count(iters, 1)              ! default or 8-byte integers
!   call fold_exit(solve)
!
! Region and counter ids are 32-bit integers (C uint32_t; ids are small).
module fold
  use, intrinsic :: iso_c_binding, only: c_int32_t, c_int64_t, c_char, c_null_char
  implicit none
  private
  public :: c_int32_t, c_int64_t
  public :: fold_region, fold_counter, fold_enter, fold_exit, fold_count, fold_pause, fold_resume

  interface
    function c_fold_region(name) bind(C, name="fold_region") result(id)
      import :: c_int32_t, c_char
      character(kind=c_char), dimension(*), intent(in) :: name
      integer(c_int32_t) :: id
    end function c_fold_region

    function c_fold_counter(name) bind(C, name="fold_counter") result(id)
      import :: c_int32_t, c_char
      character(kind=c_char), dimension(*), intent(in) :: name
      integer(c_int32_t) :: id
    end function c_fold_counter

    subroutine fold_enter(region) bind(C, name="fold_enter")
      import :: c_int32_t
      integer(c_int32_t), value :: region
    end subroutine fold_enter

    subroutine fold_exit(region) bind(C, name="fold_exit")
      import :: c_int32_t
      integer(c_int32_t), value :: region
    end subroutine fold_exit

    subroutine c_fold_count(counter, n) bind(C, name="fold_count")
      import :: c_int32_t, c_int64_t
      integer(c_int32_t), value :: counter
      integer(c_int64_t), value :: n
    end subroutine c_fold_count

    subroutine fold_pause() bind(C, name="fold_pause")
    end subroutine fold_pause

    subroutine fold_resume() bind(C, name="fold_resume")
    end subroutine fold_resume
  end interface

  ! fold_count(counter, n) takes a default (4-byte) or an 8-byte n.
  interface fold_count
    module procedure fold_count_i4, fold_count_i8
  end interface fold_count

contains

  function fold_region(name) result(id)
    character(len=*), intent(in) :: name
    integer(c_int32_t) :: id
    id = c_fold_region(trim(name)//c_null_char)
  end function fold_region

  function fold_counter(name) result(id)
    character(len=*), intent(in) :: name
    integer(c_int32_t) :: id
    id = c_fold_counter(trim(name)//c_null_char)
  end function fold_counter

  subroutine fold_count_i4(counter, n)
    integer(c_int32_t), intent(in) :: counter
    integer(c_int32_t), intent(in) :: n
    call c_fold_count(counter, int(n, c_int64_t))
  end subroutine fold_count_i4

  subroutine fold_count_i8(counter, n)
    integer(c_int32_t), intent(in) :: counter
    integer(c_int64_t), intent(in) :: n
    call c_fold_count(counter, n)
  end subroutine fold_count_i8

end module fold
