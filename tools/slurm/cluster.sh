#!/usr/bin/env bash
# A single-node Slurm cluster on this machine, from Debian's packages, for
# CI and for trying the job-array scripts before a real cluster:
#
#   tools/slurm/cluster.sh install   # apt: slurmctld slurmd slurm-client munge
#   tools/slurm/cluster.sh up        # munged, slurmctld, slurmd; waits until the node is idle
#   tools/slurm/cluster.sh down      # stops them and removes the state
#
# `up` exits 3 and changes nothing if a Slurm it did not start is running
# (its daemons without this script's state folder); `down` stops only a
# cluster that `up` started.
#
# Needs root (or sudo). Debian 12's Slurm 22.05; the pitfalls it has are
# handled here: munged wants its socket folder mode 755 (its key stays
# 600); a job depending on a failed array only dies with
# DependencyParameters=kill_invalid_depend. MinJobAge (how long Slurm
# remembers a finished job) is Slurm's default, 300 s, or $MIN_JOB_AGE:
# the scripts never depend on it.
set -euo pipefail

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
NODE="$(hostname -s)"
CONF=/etc/slurm/slurm.conf
STATE=/var/lib/slurm/menagerie

install() {
    export DEBIAN_FRONTEND=noninteractive
    local packages="slurmctld slurmd slurm-client munge"
    $SUDO apt-get install -y -qq --no-install-recommends $packages >/dev/null \
        || { $SUDO apt-get update -qq && $SUDO apt-get install -y -qq --no-install-recommends $packages >/dev/null; }
}

up() {
    local cpus memory
    # A cluster this script left (a killed CI run: its state folder is
    # there) goes first; a Slurm it did not start is never touched.
    if running; then
        if [ -d "$STATE" ]; then
            down
        else
            echo "cluster.sh: a Slurm that this script did not start is running; it is left alone" >&2
            exit 3
        fi
    fi
    cpus="$(nproc)"
    memory="$(awk '/MemTotal/ { print int($2 / 1024 * 0.9) }' /proc/meminfo)"
    $SUDO mkdir -p "$STATE/ctld" "$STATE/d" /var/log/slurm /run/munge
    # munged refuses a socket folder others cannot reach, and a key others can read.
    $SUDO chown munge:munge /run/munge
    $SUDO chmod 755 /run/munge
    if [ ! -s /etc/munge/munge.key ]; then
        $SUDO mungekey --create --force
    fi
    $SUDO chown munge:munge /etc/munge/munge.key
    $SUDO chmod 600 /etc/munge/munge.key
    $SUDO tee "$CONF" >/dev/null <<CONF
# Written by tools/slurm/cluster.sh: one node, for tests.
ClusterName=menagerie
SlurmctldHost=$NODE
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
StateSaveLocation=$STATE/ctld
SlurmdSpoolDir=$STATE/d
SlurmctldPidFile=$STATE/slurmctld.pid
SlurmdPidFile=$STATE/slurmd.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
ReturnToService=2
MinJobAge=${MIN_JOB_AGE:-300}
DependencyParameters=kill_invalid_depend
SchedulerParameters=sched_min_interval=100000,batch_sched_delay=1
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
KillWait=5
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
NodeName=$NODE CPUs=$cpus RealMemory=$memory State=UNKNOWN
PartitionName=main Nodes=$NODE Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
CONF
    $SUDO runuser -u munge -- /usr/sbin/munged
    $SUDO /usr/sbin/slurmctld
    $SUDO /usr/sbin/slurmd
    local deadline=$((SECONDS + 60))
    until sinfo -h -N -o '%T' 2>/dev/null | grep -qx 'idle'; do
        if [ $SECONDS -ge $deadline ]; then
            echo "cluster.sh: the node did not become idle" >&2
            sinfo -N -l >&2 || true
            $SUDO tail -n 20 /var/log/slurm/slurmctld.log /var/log/slurm/slurmd.log >&2 || true
            exit 1
        fi
        sleep 0.5
    done
    echo "cluster.sh: node $NODE up ($cpus CPUs)"
}

running() {
    pgrep -x slurmd >/dev/null || pgrep -x slurmctld >/dev/null || pgrep -x munged >/dev/null
}

down() {
    # Only the cluster this script started (its state folder).
    if [ ! -d "$STATE" ]; then
        echo "cluster.sh: no cluster of this script to stop" >&2
        return 0
    fi
    for daemon in slurmd slurmctld munged; do
        $SUDO pkill -x "$daemon" 2>/dev/null || true
    done
    local deadline=$((SECONDS + 20))
    while running && [ $SECONDS -lt $deadline ]; do
        sleep 0.2
    done
    for daemon in slurmd slurmctld slurmstepd munged; do
        $SUDO pkill -9 -x "$daemon" 2>/dev/null || true
    done
    $SUDO rm -rf "$STATE" "$CONF"
}

case "${1:-}" in
    install) install ;;
    up) up ;;
    down) down ;;
    *) echo "usage: $0 install|up|down" >&2; exit 2 ;;
esac
