! collprof Fortran test, `use mpi_f08` (the same program as f_use_mpi.f90 with
! the mpi_f08 module): a few MPI_Alltoallv calls with known
! The counts are those of the C harness (tests/mpi/harness.c, cpt_count
! CPT_VARY): rank r sends seed + 1 + mod(3*r + p, 4) integers to peer p.
! Plan, checked by fortran_check.c:
!   world: Alltoallv seeds 0, 5, 0 (MPI_INTEGER), Alltoall count 2
!          (MPI_DOUBLE_PRECISION)
!   dup:   Alltoallv seeds 7, 8 (MPI_INTEGER)
program f_use_mpi_f08
  use mpi_f08
  implicit none
  integer :: ierr, rank, nranks, bad, anybad
  type(MPI_Comm) :: dup

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
  bad = 0
  call exchange(MPI_COMM_WORLD, 0)
  call exchange(MPI_COMM_WORLD, 5)
  call exchange(dup, 7)
  call exchange(MPI_COMM_WORLD, 0)
  call single(MPI_COMM_WORLD, 2)
  call exchange(dup, 8)
  call MPI_Comm_free(dup, ierr)
  call MPI_Allreduce(bad, anybad, 1, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    if (anybad == 0) then
      print '(A)', 'f_use_mpi_f08: data correct'
    else
      print '(A)', 'f_use_mpi_f08: WRONG DATA'
    end if
  end if
  call MPI_Finalize(ierr)
  if (anybad /= 0) stop 1

contains

  subroutine exchange(comm, seed)
    type(MPI_Comm), intent(in) :: comm
    integer, intent(in) :: seed
    integer :: me, n, p, i, e
    integer, allocatable :: sc(:), rc(:), sd(:), rd(:), sbuf(:), rbuf(:)
    call MPI_Comm_rank(comm, me, e)
    call MPI_Comm_size(comm, n, e)
    allocate(sc(n), rc(n), sd(n), rd(n))
    do p = 0, n - 1
      sc(p + 1) = seed + 1 + mod(3 * me + p, 4)
      rc(p + 1) = seed + 1 + mod(3 * p + me, 4)
    end do
    sd(1) = 0
    rd(1) = 0
    do p = 2, n
      sd(p) = sd(p - 1) + sc(p - 1)
      rd(p) = rd(p - 1) + rc(p - 1)
    end do
    allocate(sbuf(sum(sc)), rbuf(sum(rc)))
    do p = 1, n
      do i = 1, sc(p)
        sbuf(sd(p) + i) = 1000 * me + p - 1
      end do
    end do
    call MPI_Alltoallv(sbuf, sc, sd, MPI_INTEGER, rbuf, rc, rd, MPI_INTEGER, comm, e)
    do p = 1, n
      do i = 1, rc(p)
        if (rbuf(rd(p) + i) /= 1000 * (p - 1) + me) bad = 1
      end do
    end do
    deallocate(sc, rc, sd, rd, sbuf, rbuf)
  end subroutine exchange

  subroutine single(comm, count)
    type(MPI_Comm), intent(in) :: comm
    integer, intent(in) :: count
    integer :: n, e
    double precision, allocatable :: sbuf(:), rbuf(:)
    call MPI_Comm_size(comm, n, e)
    allocate(sbuf(n * count), rbuf(n * count))
    sbuf = 1.0d0
    call MPI_Alltoall(sbuf, count, MPI_DOUBLE_PRECISION, rbuf, count, MPI_DOUBLE_PRECISION, &
                      comm, e)
    if (any(rbuf /= 1.0d0)) bad = 1
    deallocate(sbuf, rbuf)
  end subroutine single
end program f_use_mpi_f08
