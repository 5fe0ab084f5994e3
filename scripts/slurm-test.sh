#!/usr/bin/env bash
# A real Slurm test: start a one-node cluster on this machine (munged,
# slurmctld, slurmd with a generated config for this host's CPUs and memory),
# submit docs/farm/render.sbatch as a 4-task array job, wait, and check that
# the frames are byte-identical to one single-process render. The daemons are
# stopped by their process ids on exit. If the scheduler cannot start, say why
# and fail. Needs root and Debian's slurm-wlm and munge
# (scripts/build.sh --tests installs them).
# Usage: scripts/slurm-test.sh SPRITZ_BINARY
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
binary="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"

fail() { echo "slurm-test: FAIL: $*" >&2; exit 1; }
. "$root/scripts/skip.sh"
for tool in munged slurmctld slurmd sbatch sinfo; do
  command -v "$tool" >/dev/null || skip "$tool is not installed (scripts/build.sh --tests installs slurm-wlm and munge)"
done
[ "$(id -u)" -eq 0 ] || skip "starting slurmd needs root"

dir="$(mktemp -d /tmp/spritz-slurm.XXXXXX)"
chmod 755 "$dir"
pids=()
cleanup() {
  for f in "$dir"/slurmd.pid "$dir"/slurmctld.pid "$dir"/munged.pid; do
    [ -s "$f" ] && kill "$(cat "$f")" 2>/dev/null || true
  done
  sleep 1
  for f in "$dir"/slurmd.pid "$dir"/slurmctld.pid "$dir"/munged.pid; do
    [ -s "$f" ] && kill -9 "$(cat "$f")" 2>/dev/null || true
  done
  rm -rf "$dir"
}
trap cleanup EXIT
show_logs() { for f in "$dir"/*.log; do echo "--- $f"; tail -n 20 "$f"; done >&2; }

# munge: a private key, socket and pid file.
mkdir -p "$dir/munge"
dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
chmod 700 "$dir/munge"; chmod 400 "$dir/munge/munge.key"
munged --force --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.socket" \
  --pid-file="$dir/munged.pid" --log-file="$dir/munged.log" --seed-file="$dir/munge/seed" \
  || { show_logs; fail "munged did not start"; }

host="$(hostname -s)"
cpus="$(nproc)"
mem_mb=$(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 * 8 / 10 ))
port=$(( 20000 + RANDOM % 20000 ))
mkdir -p "$dir/state" "$dir/spool"
export SLURM_CONF="$dir/slurm.conf"
cat > "$SLURM_CONF" <<CONF
ClusterName=spritz-test
SlurmctldHost=$host
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
NodeName=$host CPUs=$cpus RealMemory=$mem_mb State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF

slurmctld -f "$SLURM_CONF" || { show_logs; fail "slurmctld did not start"; }
slurmd -f "$SLURM_CONF" -N "$host" || { show_logs; fail "slurmd did not start"; }
for _ in $(seq 60); do
  state="$(sinfo -h -N -o %T 2>/dev/null | head -n 1 || true)"
  [ "$state" = idle ] && break
  sleep 1
done
[ "${state:-}" = idle ] || { show_logs; fail "the node never became idle (state: '${state:-none}')"; }
echo "slurm-test: one-node cluster up ($host, $cpus CPUs)"

# The documented array job, 4 chunks, from a scratch work folder.
work="$dir/work"
mkdir -p "$work/bin"
ln -s "$root/configs" "$work/configs"
ln -s "$binary" "$work/bin/spritz"
cd "$work"
timeout 600 sbatch --wait --array=0-3 --chdir="$work" \
  --export=ALL,PATH="$work/bin:$PATH",EFFECT=configs/sparks.toml,FRAMES=0-47,OUT=farm,CHUNKS=4 \
  "$root/docs/farm/render.sbatch" || { cat "$work"/spritz_*.log >&2 || true; show_logs; fail "the array job failed"; }

"$binary" render configs/sparks.toml -f 0-47 -o single/f_####.png -q
n=$(ls farm/*.png | wc -l)
[ "$n" -eq 48 ] || fail "the array job wrote $n frames, expected 48"
diff -r --exclude=events farm single || fail "chunked frames differ from the single-process render"
summaries=$(cat farm/events/*.ndjson | grep -c '"type":"summary"')
[ "$summaries" -eq 4 ] || fail "expected 4 summary events, got $summaries"
echo "slurm-test: 4 array tasks wrote 48 frames, byte-identical to one process"
echo "1 passed, 0 failed"
