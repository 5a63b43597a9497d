#!/usr/bin/env bash
# A sweep through a real Slurm (issue 17): starts a single-node Slurm on this machine from
# Debian's slurm-wlm and munge (a generated slurm.conf and munge key, munged, slurmctld and
# slurmd, all in a temporary directory, torn down at the end), submits a small sweep with
# `s2sim sweep --slurm --tasks 2 --wait`, and compares the collected results with a local
# run of the same spec: every file row for row. No part of Slurm is mocked.
#   tests/slurm/slurm_sweep_test.sh S2SIM S2C SOURCE_DIR
# Exits 77 (skipped) when Slurm or munge is not installed or the test does not run as root.
set -euo pipefail
s2sim=$1 s2c=$2 source=$3
for tool in sbatch sinfo slurmctld slurmd munged; do
  command -v "$tool" > /dev/null || { echo "SKIP: $tool not installed (slurm-wlm, munge)"; exit 77; }
done
[ "$(id -u)" -eq 0 ] || { echo "SKIP: slurmd needs root"; exit 77; }

work=$(mktemp -d /tmp/s2_slurm_XXXXXX)
chmod 755 "$work"
pids=()
teardown() {
  for pid in "${pids[@]}"; do kill "$pid" 2> /dev/null || true; done
  sleep 1
  for pid in "${pids[@]}"; do kill -9 "$pid" 2> /dev/null || true; done
  rm -rf "$work"
}
trap teardown EXIT

# Free TCP ports for slurmctld and slurmd.
port() { /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
ctld_port=$(port)
slurmd_port=$(port)
host=$(hostname -s)
node=$(slurmd -C | head -1)

mkdir -p "$work/state" "$work/spool" "$work/munge"
dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$work/munge/munge.key"
munged --force --key-file="$work/munge/munge.key" --socket="$work/munge/munge.sock" \
  --pid-file="$work/munge/munged.pid" --log-file="$work/munge/munged.log" \
  --seed-file="$work/munge/munged.seed"
for _ in $(seq 50); do [ -s "$work/munge/munged.pid" ] && break; sleep 0.1; done
pids+=("$(cat "$work/munge/munged.pid")")

cat > "$work/slurm.conf" <<CONF
ClusterName=s2test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
AuthType=auth/munge
AuthInfo=socket=$work/munge/munge.sock
CredType=cred/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
$node NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=s2 Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$work/slurm.conf
slurmctld -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF"
for _ in $(seq 100); do
  [ -s "$work/slurmctld.pid" ] && [ -s "$work/slurmd.pid" ] && break
  sleep 0.1
done
pids+=("$(cat "$work/slurmctld.pid")" "$(cat "$work/slurmd.pid")")
for _ in $(seq 150); do
  sinfo -h -o %T 2> /dev/null | grep -q idle && break
  sleep 0.2
done
sinfo -h -o %T | grep -q idle || {
  echo "FAIL: the Slurm node did not come up"
  tail -20 "$work/slurmctld.log" "$work/slurmd.log"
  exit 1
}

cat > "$work/spec.yaml" <<SPEC
base: $source/configs/s2train_base.yaml
axes:
  - key: pe_array.rows
    values: [8, 16, 32]
  - key: dram.capacity
    values: [12MiB, 1GiB]
workloads:
  - model: mlp
    options: --batch 512
  - model: mlp
    name: mlp_b8
    options: --batch 8
objectives: [ms, energy_mj, area_mm2]
SPEC
"$s2sim" sweep "$work/spec.yaml" -o "$work/local" --s2c "$s2c" > /dev/null
"$s2sim" sweep "$work/spec.yaml" -o "$work/slurm" --s2c "$s2c" --slurm --tasks 2 --wait
[ -d "$work/slurm/shards/0" ] && [ -d "$work/slurm/shards/1" ] || {
  echo "FAIL: the job array's shards did not run"; cat "$work"/slurm/logs/slurm-*.out; exit 1; }
for file in results.csv results.jsonl pareto.csv excluded.csv; do
  cmp "$work/local/$file" "$work/slurm/$file" || { echo "FAIL: $file differs"; exit 1; }
done
echo "OK: $(($(wc -l < "$work/slurm/results.csv") - 1)) rows through Slurm equal the local run's"
