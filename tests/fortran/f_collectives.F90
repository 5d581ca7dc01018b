! collprof Fortran test of collectives other than Alltoall(v), with known
! counts; built three times: with `use mpi`, with -DF08 with `use mpi_f08`,
! and with -DMPIF_H with `include 'mpif.h'`.
! Checked afterwards by collectives_check.c (the same plan in C), exactly:
! every rank's rows of every call.  n ranks, r = rank:
!   Bcast      0: root 0, 3 MPI_INTEGER
!              1: root n-1, 2 MPI_DOUBLE_PRECISION
!   Allreduce  0: 2 MPI_INTEGER (sum)
!              1: 1 MPI_DOUBLE_PRECISION, MPI_IN_PLACE (max)
!              2: 1 MPI_INTEGER: the data check of every rank (max)
!   Gatherv    0: root mod(1, n); rank r sends 1 + mod(r, 3) MPI_INTEGER
!              1: root 0; rank r sends 1 + mod(r + 2, 3); MPI_IN_PLACE at the root
!   Reduce     0: root 0, 2 MPI_DOUBLE_PRECISION (sum)
!   Scatter    0: root n-1, 2 MPI_INTEGER per rank
!   Allgatherv 0: rank r sends 1 + mod(r + 1, 3) MPI_INTEGER
!   Barrier    0
!   Bcast      2: MPI_Ibcast, root 0, 4 MPI_INTEGER
!              3, 4: a persistent Bcast (MPI_Bcast_init; Open MPI 4.1:
!                 MPIX_Bcast_init, built with -DOMPI), root n-1, 1 MPI_INTEGER,
!                 started twice, then freed
!   Alltoallw  0: rank r sends p 1 + mod(r + 2p, 3) elements of
!                 MPI_DOUBLE_PRECISION where r + p is odd, else MPI_INTEGER
!                 (one datatype per peer)
#ifdef OMPI
#define BCAST_INIT MPIX_Bcast_init
#else
#define BCAST_INIT MPI_Bcast_init
#endif
program f_collectives
#ifdef F08
  use mpi_f08
#elif !defined(MPIF_H)
  use mpi
#endif
  implicit none
#ifdef MPIF_H
  include 'mpif.h'
#endif
#ifdef F08
  type(MPI_Comm) :: comm
  type(MPI_Request) :: req
  type(MPI_Datatype) :: wst(16), wrt(16)
#else
  integer :: comm, req
  integer :: wst(16), wrt(16)
#endif
  integer :: wsc(16), wsd(16), wrc(16), wrd(16), wsb(256), wrb(256)
  integer :: ierr, rank, n, bad, anybad, i, p, tot
  integer :: ibuf(64), ibuf2(64), cnt(16), dsp(16)
  double precision :: dbuf(4), dbuf2(4)
  ! Buffers that MPI_Wait fills without naming them: in a common block, so
  ! that the compiler reloads them after the call (MPICH 4.0's own remedy,
  ! MPI_F_sync_reg, crashes with `use mpi`).
  integer :: nbuf(4), pbuf(1)
  common /f_async/ nbuf, pbuf

  call MPI_Init(ierr)
  comm = MPI_COMM_WORLD
  call MPI_Comm_rank(comm, rank, ierr)
  call MPI_Comm_size(comm, n, ierr)
  bad = 0

  ibuf = -1
  if (rank == 0) ibuf(1:3) = [7, 8, 9]
  call MPI_Bcast(ibuf, 3, MPI_INTEGER, 0, comm, ierr)
  if (any(ibuf(1:3) /= [7, 8, 9])) bad = 1

  ibuf(1:2) = [rank + 1, 10]
  call MPI_Allreduce(ibuf, ibuf2, 2, MPI_INTEGER, MPI_SUM, comm, ierr)
  if (ibuf2(1) /= n * (n + 1) / 2 .or. ibuf2(2) /= 10 * n) bad = 1

  call gatherv(mod(1, n), 0, .false.)

  dbuf = -1.0d0
  if (rank == n - 1) dbuf(1:2) = [2.5d0, 3.5d0]
  call MPI_Bcast(dbuf, 2, MPI_DOUBLE_PRECISION, n - 1, comm, ierr)
  if (any(dbuf(1:2) /= [2.5d0, 3.5d0])) bad = 1

  call gatherv(0, 2, .true.)

  dbuf(1:2) = [1.0d0, dble(rank)]
  call MPI_Reduce(dbuf, dbuf2, 2, MPI_DOUBLE_PRECISION, MPI_SUM, 0, comm, ierr)
  if (rank == 0) then
    if (dbuf2(1) /= dble(n) .or. dbuf2(2) /= dble(n * (n - 1) / 2)) bad = 1
  end if

  if (rank == n - 1) then
    do p = 0, n - 1
      ibuf(2 * p + 1 : 2 * p + 2) = [100 * p, 100 * p + 1]
    end do
  end if
  call MPI_Scatter(ibuf, 2, MPI_INTEGER, ibuf2, 2, MPI_INTEGER, n - 1, comm, ierr)
  if (any(ibuf2(1:2) /= [100 * rank, 100 * rank + 1])) bad = 1

  ! Allgatherv: rank r sends 1 + mod(r + 1, 3) integers 1000 r + i
  tot = 0
  do p = 0, n - 1
    cnt(p + 1) = 1 + mod(p + 1, 3)
    dsp(p + 1) = tot
    tot = tot + cnt(p + 1)
  end do
  do i = 1, cnt(rank + 1)
    ibuf(i) = 1000 * rank + i
  end do
  ibuf2 = -1
  call MPI_Allgatherv(ibuf, cnt(rank + 1), MPI_INTEGER, ibuf2, cnt, dsp, MPI_INTEGER, comm, ierr)
  do p = 0, n - 1
    do i = 1, cnt(p + 1)
      if (ibuf2(dsp(p + 1) + i) /= 1000 * p + i) bad = 1
    end do
  end do

  call MPI_Barrier(comm, ierr)

  nbuf = -1
  if (rank == 0) nbuf = [1, 2, 3, 4]
  call MPI_Ibcast(nbuf, 4, MPI_INTEGER, 0, comm, req, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  if (any(nbuf /= [1, 2, 3, 4])) bad = 1

  call BCAST_INIT(pbuf, 1, MPI_INTEGER, n - 1, comm, MPI_INFO_NULL, req, ierr)
  do i = 1, 2
    pbuf = -1
    if (rank == n - 1) pbuf = 50 + i
    call MPI_Start(req, ierr)
    call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
    if (pbuf(1) /= 50 + i) bad = 1
  end do
  call MPI_Request_free(req, ierr)

  ! Alltoallw: displacements in bytes; the data is not checked, the counts
  ! are (by collectives_check)
  wsb = rank
  wsd(1) = 0
  wrd(1) = 0
  do p = 0, n - 1
    wsc(p + 1) = 1 + mod(rank + 2 * p, 3)
    wrc(p + 1) = 1 + mod(p + 2 * rank, 3)
    if (mod(rank + p, 2) == 1) then
      wst(p + 1) = MPI_DOUBLE_PRECISION
      wrt(p + 1) = MPI_DOUBLE_PRECISION
      i = 8
    else
      wst(p + 1) = MPI_INTEGER
      wrt(p + 1) = MPI_INTEGER
      i = 4
    end if
    if (p < n - 1) then
      wsd(p + 2) = wsd(p + 1) + wsc(p + 1) * i
      wrd(p + 2) = wrd(p + 1) + wrc(p + 1) * i
    end if
  end do
  call MPI_Alltoallw(wsb, wsc, wsd, wst, wrb, wrc, wrd, wrt, comm, ierr)
  if (ierr /= MPI_SUCCESS) bad = 1

  dbuf(1) = dble(rank)
  call MPI_Allreduce(MPI_IN_PLACE, dbuf, 1, MPI_DOUBLE_PRECISION, MPI_MAX, comm, ierr)
  if (dbuf(1) /= dble(n - 1)) bad = 1

  call MPI_Allreduce(bad, anybad, 1, MPI_INTEGER, MPI_MAX, comm, ierr)
  if (rank == 0) then
    if (anybad == 0) then
      print '(A)', 'f_collectives: data correct'
    else
      print '(A)', 'f_collectives: WRONG DATA'
    end if
  end if
  call MPI_Finalize(ierr)
  if (anybad /= 0) stop 1

contains

  ! Gatherv to root: rank r sends 1 + mod(r + seed, 3) integers 1000 r + i;
  ! with inplace, the root's contribution is already in place.
  subroutine gatherv(root, seed, inplace)
    integer, intent(in) :: root, seed
    logical, intent(in) :: inplace
    integer :: sb(4), rb(64), rc(16), dp(16), q, j, mine, e
    mine = 1 + mod(rank + seed, 3)
    do q = 0, n - 1
      rc(q + 1) = 1 + mod(q + seed, 3)
    end do
    dp(1) = 0
    do q = 2, n
      dp(q) = dp(q - 1) + rc(q - 1) + 1
    end do
    do j = 1, 4
      sb(j) = 1000 * rank + j
    end do
    rb = -1
    if (inplace .and. rank == root) then
      rb(dp(root + 1) + 1 : dp(root + 1) + mine) = sb(1:mine)
      call MPI_Gatherv(MPI_IN_PLACE, 99, MPI_CHARACTER, rb, rc, dp, MPI_INTEGER, root, comm, e)
    else
      call MPI_Gatherv(sb, mine, MPI_INTEGER, rb, rc, dp, MPI_INTEGER, root, comm, e)
    end if
    if (rank == root) then
      do q = 0, n - 1
        do j = 1, rc(q + 1)
          if (rb(dp(q + 1) + j) /= 1000 * q + j) bad = 1
        end do
      end do
    end if
  end subroutine gatherv
end program f_collectives
