#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# A single-node Slurm on this machine, from Debian 12's packages (slurmctld,
# slurmd, slurm-client, munge), for trying and testing mmsim's job arrays.
#
#   scripts/slurm-local.sh up       start munged, slurmctld and slurmd
#   scripts/slurm-local.sh status   what is running; exit 0 when the node is idle
#   scripts/slurm-local.sh down     stop them and remove everything `up` made
#   scripts/slurm-local.sh env      print the export line for sbatch and squeue
#
# Everything lives in one state directory, MMSIM_SLURM_DIR (default
# /tmp/mmsim-slurm): the munge key and socket, slurm.conf, the daemons'
# state, logs and pid files.  Nothing under /etc or /run is written, so it
# does not disturb a Slurm or munge that the machine already has: the
# clients find this one through SLURM_CONF (printed by `up` and `env`),
# and slurm.conf points them at this munge socket (AuthInfo=socket=).
# The ports are MMSIM_SLURM_PORT and the next one (default 6817, 6818).
#
# slurm.conf is written for this host: the node is `slurmd -C`'s line (its
# real CPUs, sockets, cores and memory), one partition "mmsim" holds it,
# SelectType=select/cons_tres with CR_CPU (a task per CPU), and
# ProctrackType=proctrack/linuxproc with TaskPlugin=task/none, so that
# nothing needs cgroups (which a container may not give).  The daemons run
# as root (SlurmUser=root): run this as root.  A job runs as whoever
# submitted it.
#
# `up` waits until the node is idle, or fails naming the log to read.
set -u

DIR=${MMSIM_SLURM_DIR:-/tmp/mmsim-slurm}
PORT=${MMSIM_SLURM_PORT:-6817}
CONF=$DIR/slurm.conf

die() { echo "slurm-local: $*" >&2; exit 1; }

need() {
	local p
	for p in "$@"; do
		command -v "$p" > /dev/null 2>&1 && continue
		[ -x "/usr/sbin/$p" ] && continue
		die "$p is not installed: expected Debian's slurmctld, slurmd, slurm-client and munge packages (apt-get install slurmctld slurmd slurm-client munge)"
	done
}

pid_alive() { [ -s "$1" ] && kill -0 "$(cat "$1")" 2> /dev/null; }

# The node as slurmd sees it: "NodeName=host CPUs=2 Boards=1 ... RealMemory=24105".
node_line() {
	/usr/sbin/slurmd -C 2> /dev/null | head -1
}

write_conf() {
	local node host
	node=$(node_line)
	case $node in
	NodeName=*) ;;
	*) die "slurmd -C printed no NodeName line: cannot describe this host" ;;
	esac
	host=${node%% *}
	host=${host#NodeName=}
	cat > "$CONF" <<EOF
# Written by scripts/slurm-local.sh for $host; removed by "down".
ClusterName=mmsim
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$PORT
SlurmdPort=$((PORT + 1))
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$DIR/munge/munge.socket.2
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$DIR/ctld
SlurmdSpoolDir=$DIR/slurmd
SlurmctldPidFile=$DIR/slurmctld.pid
SlurmdPidFile=$DIR/slurmd.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
MaxArraySize=1001
MinJobAge=600
MailProg=/bin/true
SchedulerParameters=sched_interval=1,bf_interval=1
$node NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=mmsim Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
}

start_munge() {
	mkdir -p "$DIR/munge"
	chmod 0755 "$DIR/munge"	# the socket, for any user; the key itself is 0400
	if command -v mungekey > /dev/null 2>&1 || [ -x /usr/sbin/mungekey ]; then
		PATH=$PATH:/usr/sbin mungekey --create --keyfile="$DIR/munge/munge.key" ||
			die "mungekey could not create a key"
	else
		dd if=/dev/urandom of="$DIR/munge/munge.key" bs=1024 count=1 status=none
	fi
	chmod 0400 "$DIR/munge/munge.key"
	/usr/sbin/munged --force --key-file="$DIR/munge/munge.key" \
		--socket="$DIR/munge/munge.socket.2" --pid-file="$DIR/munge/munged.pid" \
		--log-file="$DIR/log/munged.log" --seed-file="$DIR/munge/munged.seed" ||
		die "munged did not start: see $DIR/log/munged.log"
	# munge -n | unmunge: a credential made and checked through this socket.
	munge -S "$DIR/munge/munge.socket.2" -n 2> /dev/null |
		unmunge -S "$DIR/munge/munge.socket.2" > /dev/null 2>&1 ||
		die "munged started but a credential does not round-trip: see $DIR/log/munged.log"
}

# Wait up to $1 seconds until the node is idle (sinfo's state).
wait_idle() {
	local i state
	for ((i = 0; i < $1 * 2; i++)); do
		state=$(SLURM_CONF=$CONF sinfo -h -N -o %T 2> /dev/null | head -1)
		[ "$state" = idle ] && return 0
		sleep 0.5
	done
	return 1
}

cmd_up() {
	[ "$(id -u)" = 0 ] || die "up: expected to run as root (slurmd and munged run as root here)"
	need munged munge unmunge slurmctld slurmd sbatch sinfo scontrol
	if [ -e "$DIR" ]; then
		pid_alive "$DIR/slurmctld.pid" && die "up: already running in $DIR (run down first)"
		rm -rf "$DIR"
	fi
	mkdir -p "$DIR/log" "$DIR/ctld" "$DIR/slurmd" || die "cannot make $DIR"
	chmod 0755 "$DIR"
	start_munge
	write_conf
	/usr/sbin/slurmctld -f "$CONF" ||
		die "slurmctld did not start: see $DIR/log/slurmctld.log"
	/usr/sbin/slurmd -f "$CONF" ||
		die "slurmd did not start: see $DIR/log/slurmd.log"
	if ! wait_idle 60; then
		echo "slurm-local: the node is not idle after 60 s; the last lines of the logs:" >&2
		tail -n 5 "$DIR/log/slurmctld.log" "$DIR/log/slurmd.log" >&2
		die "up failed"
	fi
	echo "slurm-local: up, node $(SLURM_CONF=$CONF sinfo -h -N -o '%N %c CPUs %m MB %T')"
	echo "export SLURM_CONF=$CONF"
}

cmd_down() {
	local f pid i
	if [ -s "$DIR/slurmctld.pid" ] && [ -e "$CONF" ]; then
		# Cancel what is left, so that no job outlives the cluster.
		SLURM_CONF=$CONF scancel --quiet --partition=mmsim 2> /dev/null
		for ((i = 0; i < 40; i++)); do
			[ -z "$(SLURM_CONF=$CONF squeue -h 2> /dev/null)" ] && break
			sleep 0.25
		done
	fi
	for f in slurmd.pid slurmctld.pid munge/munged.pid; do
		pid_alive "$DIR/$f" || continue
		pid=$(cat "$DIR/$f")
		kill "$pid" 2> /dev/null
		for ((i = 0; i < 40; i++)); do
			kill -0 "$pid" 2> /dev/null || break
			sleep 0.25
		done
		kill -0 "$pid" 2> /dev/null && kill -KILL "$pid" 2> /dev/null
	done
	rm -rf "$DIR"
	echo "slurm-local: down, $DIR removed"
}

cmd_status() {
	local f ok=0
	for f in munge/munged.pid slurmctld.pid slurmd.pid; do
		if pid_alive "$DIR/$f"; then
			echo "${f##*/}: running, pid $(cat "$DIR/$f")"
		else
			echo "${f##*/}: not running"
			ok=1
		fi
	done
	[ $ok = 0 ] || return 1
	SLURM_CONF=$CONF sinfo -N -o '%N %c %m %T' || return 1
	wait_idle 1
}

case ${1:-} in
up) cmd_up ;;
down) cmd_down ;;
status) cmd_status ;;
env) echo "export SLURM_CONF=$CONF" ;;
*) echo "usage: scripts/slurm-local.sh up|down|status|env   (state in \$MMSIM_SLURM_DIR, default /tmp/mmsim-slurm)" >&2
   exit 2 ;;
esac
