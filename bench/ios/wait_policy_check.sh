#!/bin/bash
# Whether IOS-both's schedule keeps, in the model, the speed its measured search found, with the wait
# policy `tensorperf schedule` and `run --schedule` give libgomp (docs/runtime.md, Threads) and with
# libgomp's own (TENSORPERF_OMP_WAIT_POLICY=default): the check for a machine with many cores, where
# a stage's groups of several threads keep OpenMP teams of their own (docs/graphsched.md, the sixth
# 16-core run). Needs only ios_runner, so it runs where ios_runner travelled alone
# (scripts/pack_binary.sh --slim build/bench/ios/ios_runner OUT.tar.xz) and bash; no Python.
#
#   bench/ios/wait_policy_check.sh IOS_RUNNER OUT_DIR [THREADS] [NETWORK:BUDGET_S ...]
#
# Defaults: 16 threads, randwire:100 and nasnet_a_mobile:120 (about 9 minutes on a 16-core Xeon).
# For each network at batch 1: `ios_runner --variants ios-both` searches IOS-both with measured stage
# costs in BUDGET_S seconds (a new stage database in OUT_DIR), times it beside the sequential schedule
# in one process and lets the whole model judge (OUT_DIR/<network>_search.json, its log beside it);
# then ROUNDS (default 3) rounds, each running sequential and IOS-both whole (`ios_runner --run
# --repeat 30`) under both policies, one process each, in rotating order. Every run is a line of
# OUT_DIR/runs.tsv (network, schedule, policy asked, policy reported, round, p50 ms, min ms); the
# table at the end gives the median p50 of the rounds per cell.
set -uo pipefail
if [ $# -lt 2 ] || [ ! -x "$1" ]; then
  echo "usage: bench/ios/wait_policy_check.sh IOS_RUNNER OUT_DIR [THREADS] [NETWORK:BUDGET_S ...]" >&2
  exit 2
fi
runner=$1
out=$2
threads=${3:-16}
shift $(($# < 3 ? $# : 3))
nets=("$@")
[ ${#nets[@]} -eq 0 ] && nets=(randwire:100 nasnet_a_mobile:120)
rounds=${ROUNDS:-3}
mkdir -p "$out/schedules" || exit 1
db=$out/stages.db
runs=$out/runs.tsv
printf 'network\tschedule\tpolicy\treported\tround\tp50_ms\tmin_ms\n' >"$runs"
field() { grep -o "\"$1\":[^,}]*" | head -1 | cut -d: -f2 | tr -d '"'; }
status=0

for nb in "${nets[@]}"; do
  net=${nb%%:*}
  budget=${nb#*:}
  echo "wait_policy_check: $net b1: searching IOS-both at $threads threads, budget ${budget} s" >&2
  if ! "$runner" --model "$net" --batch 1 --threads "$threads" --db "$db" --search-budget "$budget" \
      --variants ios-both --rounds 3 --seconds 0.3 --save-dir "$out/schedules" \
      >"$out/${net}_search.json" 2>"$out/${net}_search.log"; then
    echo "wait_policy_check: $net: the search failed: $(tail -1 "$out/${net}_search.log")" >&2
    status=1
  fi
  grep -E "searched in|chose" "$out/${net}_search.log" >&2
done

cells=()
for nb in "${nets[@]}"; do
  net=${nb%%:*}
  [ -f "$out/schedules/${net}_b1_ios-both.json" ] || continue
  for sched in sequential ios-both; do
    for policy in active default; do cells+=("$net $sched $policy"); done
  done
done
for ((r = 1; r <= rounds; ++r)); do
  n=${#cells[@]}
  for ((k = 0; k < n; ++k)); do
    read -r net sched policy <<<"${cells[$(((k + r) % n))]}"
    args=(--run --model "$net" --batch 1 --threads "$threads" --db "$db" --repeat 30)
    [ "$sched" = ios-both ] && args+=(--schedule "$out/schedules/${net}_b1_ios-both.json")
    env_policy=()
    [ "$policy" = default ] && env_policy=(TENSORPERF_OMP_WAIT_POLICY=default)
    if ! json=$(env "${env_policy[@]}" "$runner" "${args[@]}" 2>>"$out/runs.log"); then
      echo "wait_policy_check: $net $sched ($policy): the run failed: $(tail -1 "$out/runs.log")" >&2
      status=1
      continue
    fi
    p50=$(printf '%.3f' "$(field p50 <<<"$json")")
    min=$(printf '%.3f' "$(field min <<<"$json")")
    reported=$(field omp_wait_policy <<<"$json")
    printf '%s\t%s\t%s\t%s\t%d\t%s\t%s\n' "$net" "$sched" "$policy" "$reported" "$r" "$p50" "$min" >>"$runs"
    echo "wait_policy_check: round $r of $rounds: $net $sched ($policy, reported $reported): p50 $p50 ms" >&2
  done
done

# The table: median p50 of the rounds per network, schedule and policy (plain awk: no gawk there).
printf '%-18s %-11s %-8s %-9s %10s  %s\n' "network (b1)" schedule policy reported "p50 ms" rounds
for cell in "${cells[@]}"; do
  read -r net sched policy <<<"$cell"
  rows=$(awk -F'\t' -v n="$net" -v s="$sched" -v p="$policy" '$1 == n && $2 == s && $3 == p' "$runs")
  vals=$(cut -f6 <<<"$rows" | sort -g)
  med=$(awk 'NF { x[++n] = $1 } END { if (!n) print "-"; else if (n % 2) printf "%.3f\n", x[(n + 1) / 2]; else printf "%.3f\n", (x[n / 2] + x[n / 2 + 1]) / 2 }' <<<"$vals")
  printf '%-18s %-11s %-8s %-9s %10s  %s\n' "$net" "$sched" "$policy" "$(cut -f4 <<<"$rows" | sort -u | tr '\n' ' ')" "$med" "$(cut -f6 <<<"$rows" | tr '\n' ' ')"
done
exit $status
