#!/bin/sh
# A one-node Slurm cluster on this machine, for collprof's Slurm tests and for
# trying collprof as a batch system runs it: munged, slurmctld and slurmd on
# this host, every file of theirs in DIR.
#
# usage: scripts/slurm-local.sh start DIR   prints the line to source:
#                                           export SLURM_CONF=DIR/slurm.conf
#        scripts/slurm-local.sh stop DIR    stops what start started
#
# Needs root and Debian's slurm-wlm and munge (scripts/install-deps.sh).  When
# a cluster cannot be brought up, it says why on stderr and exits 77 (the
# tests skip with that reason).
set -u
cmd=${1:-} dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || { echo "usage: $0 start|stop DIR" >&2; exit 2; }
cannot() { echo "no one-node Slurm: $*" >&2; exit 77; }

stop() {
    for d in slurmd slurmctld munged; do
        [ -f "$dir/$d.pid" ] && kill "$(cat "$dir/$d.pid")" 2>/dev/null
        rm -f "$dir/$d.pid"
    done
    return 0
}

case $cmd in
stop) stop; exit 0 ;;
start) ;;
*) echo "usage: $0 start|stop DIR" >&2; exit 2 ;;
esac

[ "$(id -u)" = 0 ] || cannot "slurmd and munged must start as root"
for p in slurmctld slurmd munged srun sinfo; do
    command -v "$p" >/dev/null || [ -x "/usr/sbin/$p" ] ||
        cannot "$p is not installed (apt-get install slurm-wlm munge)"
done
[ -r /etc/munge/munge.key ] || cannot "no /etc/munge/munge.key"
mkdir -p "$dir/state" "$dir/spool" || cannot "cannot make $dir"
host=$(hostname -s)
cpus=$(nproc)

# munged: this machine's, if one runs; else ours (its socket in /run/munge).
if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
    mkdir -p /run/munge && chown munge:munge /run/munge && chmod 755 /run/munge
    runuser -u munge -- /usr/sbin/munged >"$dir/munged.log" 2>&1 ||
        cannot "munged did not start: $(cat "$dir/munged.log")"
    pgrep -n -u munge munged >"$dir/munged.pid"
    munge -n 2>/dev/null | unmunge >/dev/null 2>&1 || cannot "munge does not answer"
fi

# The node may run more tasks than cores: tests oversubscribe, as mpiexec does.
cat >"$dir/slurm.conf" <<CONF
ClusterName=collprof
SlurmctldHost=$host
NodeName=$host CPUs=$cpus State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
KillWait=5
MinJobAge=5
InactiveLimit=0
OverTimeLimit=0
SchedulerType=sched/builtin
JobCompType=jobcomp/none
CONF
export SLURM_CONF="$dir/slurm.conf"
if ! sinfo -h >/dev/null 2>&1; then
    slurmctld -f "$SLURM_CONF" >"$dir/slurmctld.out" 2>&1 || cannot "slurmctld did not start: $(cat "$dir/slurmctld.out")"
fi
pgrep -x slurmd >/dev/null || slurmd -f "$SLURM_CONF" >"$dir/slurmd.out" 2>&1 ||
    cannot "slurmd did not start: $(cat "$dir/slurmd.out")"
k=0
until sinfo -h -o %t 2>/dev/null | grep -q 'idle\|mix\|alloc'; do
    k=$((k + 1))
    [ $k -lt 100 ] || { stop; cannot "the node did not come up: $(sinfo 2>&1 | tail -1)"; }
    sleep 0.1
done
echo "export SLURM_CONF=$SLURM_CONF"
