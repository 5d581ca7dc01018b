"""An mpi4py program (robustness.sh): ROUNDS rounds of an Allreduce and a
Bcast of 8 doubles on MPI_COMM_WORLD; rank 0 prints the last sum.

usage: python3 app_mpi4py.py ROUNDS
"""
import array
import sys

from mpi4py import MPI

comm = MPI.COMM_WORLD
buf = array.array('d', [comm.rank + 1.0] * 8)
out = array.array('d', [0.0] * 8)
for i in range(int(sys.argv[1])):
    comm.Allreduce(buf, out, op=MPI.SUM)
    comm.Bcast(buf, root=0)
if comm.rank == 0:
    print("mpi4py app:", out[0])
