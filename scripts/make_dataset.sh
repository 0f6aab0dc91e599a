#!/usr/bin/env bash
# make_dataset.sh: the multi-device measurement dataset for learned cost models (data/measurements/).
#
# For every distinct workload of the zoo's nine models at batch 1 (and three CNNs at batch 8), on
# every device this machine offers (each Halide ISA level the CPU runs x 1 and 2 threads), measures
# configs from the tuners' trajectories (rounds of random, ga and xgb, so fast and slow programs are
# both present; oneDNN's configs included). One compile serves both thread counts: the 2-thread run
# times every config it compiles at 1 thread too (`tune --also-threads 1`); the 1-thread run after it
# only tops its device up to the round's budget. Each round re-measures one model's default configs
# at a later time to give the noise floor; a top-up after the rounds measures more models' defaults
# again until at least 2% of each device's records, and of the whole dataset's, are configs measured
# twice. Each record keeps the machine's load. Then exports the records per device, zstd-compressed,
# with the devices' descriptions, and writes data/measurements/README.md (scripts/dataset_readme.py),
# without the records of known measurement faults (scripts/drop_faulty_records.py).
#
# Resumable and safe to stop at any time (Ctrl-C, kill, a lost session): every measurement is in the
# database (default build/dataset/dataset.db) as soon as it is made and `tune` counts what is there;
# a re-run continues. A new database starts from the committed records, so a fresh clone continues
# the dataset too. It waits while the project builds (measuring then would be noise).
#
# Usage: scripts/make_dataset.sh [--hours H] [--rounds R] [--first-round F] [--per-round N] [--db FILE] [--export-only]
#                                [--native-top-up] [--host-pass] [--native-passes P] [--synthetic N] [--synthetic-repeat] [--synthetic-set S]
#                                [--synthetic-kind K] [--synthetic-tuner T] [--elementwise-grid] [--isas LIST]
#                                [--threads LIST]
#   --hours H       stop starting new steps after H hours (default: no limit)
#   --rounds R      tuning rounds (default 6); round r brings each workload to r x N trials per device
#   --first-round F start at round F (default 1): the rounds before it are done on this machine's devices
#   --per-round N   trials per workload and round (default 6)
#   --export-only   only export the database into data/measurements/ and rewrite its README
#   --native-top-up only measure the default configs (oneDNN's and Halide's) of every zoo model at batch 1 and
#                   8 on this machine's devices and import the records of programs that `tensorperf run`
#                   chooses there (so the configs a graph runs stay as they were) and that the device has
#                   no timing in native layouts of (kernels that gained native costs after they were
#                   measured: oneDNN's pools; a device whose rounds measured only synthetic shapes) or no
#                   record of at all (the six models at batch 8 that the rounds do not tune), then export;
#                   of the --native-passes P passes (default 2) over every step and device, each program's
#                   fastest timing is imported (native where there is one)
#   --native-passes P  with --native-top-up or --host-pass: passes over all steps (each program timed P times,
#                   minutes apart)
#   --host-pass     only measure again, alone on this host, the configs that `tensorperf run` runs for every zoo
#                   model at batch 1 and 8 on this machine's devices (`profile --configs-of`), and import, of the
#                   --native-passes P passes, each program's fastest timing (native where there is one), then
#                   export. One device key covers hosts that run the same kernels up to 1.6x apart; the cost models'
#                   samples keep only a program's newest session (costmodel/record_samples.h), so after a host pass
#                   the programs the models run are this host's. A pass's files are kept under build/dataset/
#                   host-pass-DATE/, so a re-run the same day continues it
#   --synthetic N   only measure the synthetic workloads of scripts/synthetic_workloads.py (memory-bound kinds,
#                   transformer matrix products and fully connected layers at shapes of no zoo network), N configs
#                   each (random ones unless --synthetic-tuner says otherwise), on this machine's devices (a 2-thread
#                   device's compiles timed at 1 thread too), then export
#   --synthetic-repeat  only measure each synthetic workload's first configs (the providers' seed configs) again on
#                   this machine's devices, into a database of their own that is then imported (the synthetic
#                   shapes' noise floor: configs measured twice), then export
#   --synthetic-set S  with --synthetic or --synthetic-repeat: only the set S of synthetic_workloads.py (memory,
#                   matmul, fc or all; default all)
#   --synthetic-kind K  with --synthetic or --synthetic-repeat: only the keys of kind K of the set(s) (e.g. depthwise)
#   --synthetic-tuner T with --synthetic: the tuner that picks the configs (random, the default; xgb or ga bring
#                   each workload up to N trials along a tuner's trajectory, so the fast configs of those shapes are
#                   measured too, as the zoo's rounds measure them)
#   --elementwise-grid  only measure every config of Halide's element-wise space (36 points: vector width x
#                   unroll x parallel) of each element-wise workload that no oneDNN kernel runs (ReLUs, sums,
#                   products, sigmoids, ...) of every zoo model at batch 1 and 8, on this machine's devices (a
#                   2-thread device's compiles timed at 1 thread too), then export. The rounds' tuners measure
#                   few of these small spaces' points, and most of their records were the old scalar one-thread
#                   default alone (the `chunks` value, the default since 2026-12-02, had none)
#   --isas LIST     only these of the ISA levels this CPU runs (comma-separated: avx512,avx2,sse41)
#   --threads LIST  only these thread counts (comma-separated, of 2 and 1)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
TP="$ROOT/build/tensorperf"
WORK="$ROOT/build/dataset"
DB="$WORK/dataset.db"
OUT="$ROOT/data/measurements"
HOURS=0
ROUNDS=6
FIRST_ROUND=1
PER_ROUND=6
EXPORT_ONLY=0
NATIVE_TOP_UP=0
HOST_PASS=0
NATIVE_PASSES=2
SYNTHETIC=0
SYNTHETIC_REPEAT=0
SYNTHETIC_SET=all
SYNTHETIC_KIND=""
SYNTHETIC_TUNER=random
ELEMENTWISE_GRID=0
ONLY_ISAS=""
ONLY_THREADS=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --hours) HOURS="$2"; shift 2 ;;
    --rounds) ROUNDS="$2"; shift 2 ;;
    --first-round) FIRST_ROUND="$2"; shift 2 ;;
    --per-round) PER_ROUND="$2"; shift 2 ;;
    --db) DB="$2"; shift 2 ;;
    --export-only) EXPORT_ONLY=1; shift ;;
    --native-top-up) NATIVE_TOP_UP=1; shift ;;
    --host-pass) HOST_PASS=1; shift ;;
    --native-passes) NATIVE_PASSES="$2"; shift 2 ;;
    --synthetic) SYNTHETIC="$2"; shift 2 ;;
    --synthetic-repeat) SYNTHETIC_REPEAT=1; shift ;;
    --synthetic-set) SYNTHETIC_SET="$2"; shift 2 ;;
    --synthetic-kind) SYNTHETIC_KIND="$2"; shift 2 ;;
    --synthetic-tuner) SYNTHETIC_TUNER="$2"; shift 2 ;;
    --elementwise-grid) ELEMENTWISE_GRID=1; shift ;;
    --isas) ONLY_ISAS="$2"; shift 2 ;;
    --threads) ONLY_THREADS="$2"; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "make_dataset: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[[ -x "$TP" ]] || { echo "make_dataset: $TP is missing: build first (make build)" >&2; exit 1; }
mkdir -p "$WORK" "$OUT"
"$TP" db init --db "$DB" > /dev/null

MODELS=(resnet18 resnet50 vgg16 inception_v3 squeezenet1_1 mobilenet_v2 nasnet_a_mobile randwire bert_base)
BATCH8=(resnet18 squeezenet1_1 mobilenet_v2)
TUNERS=(random ga xgb)

# ISA levels this CPU runs, widest first; thread counts this process may use.
flags="$(grep -m1 '^flags' /proc/cpuinfo)"
ISAS=()
[[ "$flags" == *" avx512f "* && "$flags" == *" avx512bw "* ]] && ISAS+=(avx512)
[[ "$flags" == *" avx2 "* && "$flags" == *" fma "* ]] && ISAS+=(avx2)
[[ "$flags" == *" sse4_1 "* ]] && ISAS+=(sse41)
# The widest first: it times its compiles at the narrower counts too (--also-threads).
THREADS=(1)
[[ "$(nproc)" -ge 2 ]] && THREADS=(2 1)
keep_only() {  # the words of $2.. that the comma-separated list $1 names (all of them when it is empty)
  local list="$1"; shift
  for x in "$@"; do [[ -z "$list" || ",$list," == *",$x,"* ]] && echo "$x"; done
  return 0
}
mapfile -t ISAS < <(keep_only "$ONLY_ISAS" "${ISAS[@]}")
mapfile -t THREADS < <(keep_only "$ONLY_THREADS" "${THREADS[@]}")
[[ ${#ISAS[@]} -gt 0 && ${#THREADS[@]} -gt 0 ]] ||
  { echo "make_dataset: --isas '$ONLY_ISAS' / --threads '$ONLY_THREADS' leave no device this machine has" >&2; exit 2; }

START=$(date +%s)
out_of_time() {
  [[ "$HOURS" == 0 ]] && return 1
  awk -v s="$START" -v now="$(date +%s)" -v h="$HOURS" 'BEGIN { exit !((now - s) > h * 3600) }'
}
wait_for_builds() {
  while pgrep -x cc1plus > /dev/null || pgrep -x ninja > /dev/null; do
    echo "make_dataset: a build is running; waiting (measurements during a build are noise)"
    sleep 30
  done
}
records() { "$TP" db stats --db "$DB" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["records"])'; }
device_key() {  # this machine's device key at ISA $1 and $2 threads
  local w
  w="$("$TP" tasks --model resnet18 --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["tasks"][0]["key"])')"
  "$TP" features --workload "$w" --isa "$1" --threads "$2" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["device"])'
}
repeated_models() {  # ",m1 b1,m2 b1,...,": the models whose defaults device $1 already has measured twice
  echo ",$("$TP" db export --all --db "$DB" --device "$1" 2> /dev/null |
    python3 "$ROOT/scripts/dataset_readme.py" --tensorperf "$TP" --repeated-models-of - | tr '\n' ,)"
}
tasks_of() { "$TP" tasks --model "$1" --batch "$2" --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["tasks"]))'; }

export_dataset() {
  echo "make_dataset: exporting $DB into $OUT"
  for key in $("$TP" db devices --db "$DB" --json | python3 -c 'import json,sys; [print(d["device"]) for d in json.load(sys.stdin)]'); do
    "$TP" db export --all --db "$DB" --device "$key" | zstd -q -19 -f -o "$OUT/$key.jsonl.zst"
    cache="${XDG_CACHE_HOME:-$HOME/.cache}/tensorperf/device-$key.json"
    # A device keeps the description it was first shipped with: a new session measures its peaks
    # again (2026-11-25: 53 against 104 GFLOP/s for one device), and its earlier records were not
    # measured under the new numbers.
    [[ -f "$cache" && ! -f "$OUT/device-$key.json" ]] && cp "$cache" "$OUT/device-$key.json"
  done
  # A database made before a known fault was found still holds its records: they are not exported.
  python3 "$ROOT/scripts/drop_faulty_records.py" --dir "$OUT" | tail -1
  python3 "$ROOT/scripts/dataset_readme.py" --tensorperf "$TP" --dir "$OUT" > "$OUT/README.md"
  echo "make_dataset: wrote $OUT/README.md"
}

if [[ "$EXPORT_ONLY" == 1 ]]; then export_dataset; exit 0; fi

# A new database (a fresh clone) starts from the committed dataset, so the rounds continue it.
if [[ "$(records)" == 0 ]] && compgen -G "$OUT/*.jsonl.zst" > /dev/null; then
  echo "make_dataset: new database: importing the committed records of $OUT first"
  "$TP" db import --db "$DB" "$OUT"/*.jsonl.zst > /dev/null
fi

STEPS=()  # "model batch": the rounds' steps
for m in "${MODELS[@]}"; do STEPS+=("$m 1"); done
for m in "${BATCH8[@]}"; do STEPS+=("$m 8"); done
TOP_UP_STEPS=()  # the native top-up's: every model at both batch sizes that `predict` is checked at
for m in "${MODELS[@]}"; do TOP_UP_STEPS+=("$m 1" "$m 8"); done

trap 'echo; echo "make_dataset: stopped; $(records) records in $DB; run again to continue"; exit 130' INT TERM

# The top-up's files of step (model $1, batch $2) on ISA $3 at $4 threads: pass $5's profile, or with
# "chosen" the run's choices.
native_file() {
  local base="$WORK/native-$1-b$2-$3-t$4"
  [[ "$5" == chosen ]] && echo "$base.chosen.json" || echo "$base-p$5.jsonl"
}
# Writes the run of model $1 at batch $2 on ISA $3 at $4 threads as `tensorperf run --json` prints it
# (the programs the executor chooses there; one repeat, its timing is not used) to $5, unless $5 is
# already there; errors go to $6. Fails, with a message, when the run does.
run_choices() {
  [[ -s "$5" ]] && return 0
  "$TP" run --model "$1" --batch "$2" --isa "$3" --threads "$4" --db "$DB" --repeat 1 --json > "$5.part" 2>> "$6" ||
    { echo "make_dataset: run of $1 b$2 on $3 t$4 failed (see $6); going on"; return 1; }
  mv "$5.part" "$5"
}
if [[ "$NATIVE_TOP_UP" == 1 || "$HOST_PASS" == 1 ]]; then
  [[ "$NATIVE_PASSES" =~ ^[1-9][0-9]*$ ]] || { echo "make_dataset: --native-passes takes a positive count" >&2; exit 2; }
fi
if [[ "$NATIVE_TOP_UP" == 1 ]]; then
  # Every pass profiles every step on every device; a pass's file is kept once complete, so a re-run
  # goes on where it stopped. The passes time each program minutes apart, and the faster is imported.
  for ((p = 1; p <= NATIVE_PASSES; p++)); do
    for isa in "${ISAS[@]}"; do
      for t in "${THREADS[@]}"; do
        for s in "${TOP_UP_STEPS[@]}"; do
          out_of_time && { echo "make_dataset: --hours $HOURS reached"; break 4; }
          read -r model batch <<< "$s"
          new="$(native_file "$model" "$batch" "$isa" "$t" "$p")"
          chosen="$(native_file "$model" "$batch" "$isa" "$t" chosen)"
          [[ -s "$new" ]] && continue
          wait_for_builds
          # What the executor runs there now, before anything is imported.
          run_choices "$model" "$batch" "$isa" "$t" "$chosen" "$WORK/last_native.log" || continue
          "$TP" profile --model "$model" --batch "$batch" --isa "$isa" --threads "$t" --provider all --configs-per-task 1 \
            --repeat 3 --min-repeat-ms 10 --out "$new.part" --json > /dev/null 2>> "$WORK/last_native.log" ||
            { echo "make_dataset: profile of $model b$batch on $isa t$t failed (see $WORK/last_native.log); going on"; continue; }
          mv "$new.part" "$new"
          echo "[native top-up] pass $p/$NATIVE_PASSES: $isa t$t $model b$batch: $(grep -c . "$new") records"
        done
      done
    done
  done
  for isa in "${ISAS[@]}"; do
    for t in "${THREADS[@]}"; do
      key="$(device_key "$isa" "$t")"
      for s in "${TOP_UP_STEPS[@]}"; do
        read -r model batch <<< "$s"
        passes=()
        for ((p = 1; p <= NATIVE_PASSES; p++)); do
          f="$(native_file "$model" "$batch" "$isa" "$t" "$p")"
          [[ -s "$f" ]] && passes+=("$f")
        done
        chosen="$(native_file "$model" "$batch" "$isa" "$t" chosen)"
        [[ ${#passes[@]} -gt 0 && -s "$chosen" ]] || continue
        missing="$WORK/native-$model-b$batch-$isa-t$t.missing.jsonl"
        "$TP" db export --all --db "$DB" --device "$key" |
          python3 "$ROOT/scripts/native_costs_missing.py" --chosen "$chosen" - "${passes[@]}" > "$missing"
        [[ -s "$missing" ]] && "$TP" db import --db "$DB" "$missing" > /dev/null
        echo "[native top-up] $isa t$t $model b$batch: +$(grep -c . "$missing") records, the faster of ${#passes[@]} passes ($(records) in all)"
      done
    done
  done
  export_dataset
  exit 0
fi
if [[ "$HOST_PASS" == 1 ]]; then
  HOST_DIR="$WORK/host-pass-$(date -u +%F)"
  mkdir -p "$HOST_DIR"
  for ((p = 1; p <= NATIVE_PASSES; p++)); do
    for isa in "${ISAS[@]}"; do
      for t in "${THREADS[@]}"; do
        for s in "${TOP_UP_STEPS[@]}"; do
          out_of_time && { echo "make_dataset: --hours $HOURS reached"; break 4; }
          read -r model batch <<< "$s"
          base="$HOST_DIR/$model-b$batch-$isa-t$t"
          [[ -s "$base-p$p.jsonl" ]] && continue
          wait_for_builds
          # What the executor runs there, before this pass imports anything.
          run_choices "$model" "$batch" "$isa" "$t" "$base.chosen.json" "$HOST_DIR/last.log" || continue
          rm -f "$base-p$p.jsonl.part"
          "$TP" profile --model "$model" --batch "$batch" --isa "$isa" --threads "$t" --configs-of "$base.chosen.json" \
            --repeat 3 --min-repeat-ms 10 --out "$base-p$p.jsonl.part" --json > /dev/null 2>> "$HOST_DIR/last.log" ||
            { echo "make_dataset: profile of $model b$batch on $isa t$t failed (see $HOST_DIR/last.log); going on"; continue; }
          mv "$base-p$p.jsonl.part" "$base-p$p.jsonl"
          echo "[host pass] pass $p/$NATIVE_PASSES: $isa t$t $model b$batch: $(grep -c . "$base-p$p.jsonl") programs ($(( ($(date +%s) - START) / 60 )) min)"
        done
      done
    done
  done
  for isa in "${ISAS[@]}"; do
    for t in "${THREADS[@]}"; do
      for s in "${TOP_UP_STEPS[@]}"; do
        read -r model batch <<< "$s"
        base="$HOST_DIR/$model-b$batch-$isa-t$t"
        [[ -f "$base.imported" ]] && continue
        passes=()
        for ((p = 1; p <= NATIVE_PASSES; p++)); do [[ -s "$base-p$p.jsonl" ]] && passes+=("$base-p$p.jsonl"); done
        [[ ${#passes[@]} == "$NATIVE_PASSES" && -s "$base.chosen.json" ]] || continue
        # Against no records: every chosen program's fastest timing of the passes.
        python3 "$ROOT/scripts/native_costs_missing.py" --chosen "$base.chosen.json" /dev/null "${passes[@]}" > "$base.import.jsonl"
        [[ -s "$base.import.jsonl" ]] && "$TP" db import --db "$DB" "$base.import.jsonl" > /dev/null
        touch "$base.imported"
        echo "[host pass] $isa t$t $model b$batch: +$(grep -c . "$base.import.jsonl") records, the faster of ${#passes[@]} passes ($(records) in all)"
      done
    done
  done
  export_dataset
  exit 0
fi
if [[ "$ELEMENTWISE_GRID" == 1 ]]; then
  # The element-wise workloads no oneDNN kernel runs (the ops of Halide's element-wise template that
  # oneDNN has no standalone kernel for), distinct over the steps.
  mapfile -t EW_KEYS < <(for s in "${TOP_UP_STEPS[@]}"; do
    read -r model batch <<< "$s"
    "$TP" tasks --model "$model" --batch "$batch" --json |
      python3 -c 'import json,sys
for t in json.load(sys.stdin)["tasks"]:
    if t["key"].split("|")[0] in ("relu", "relu6", "add", "mul", "sigmoid", "tanh", "gelu"): print(t["key"])'
  done | sort -u)
  [[ ${#EW_KEYS[@]} -gt 0 ]] || { echo "make_dataset: the zoo gave no element-wise workloads" >&2; exit 1; }
  for isa in "${ISAS[@]}"; do
    for t in "${THREADS[@]}"; do
      # A 2-thread device's run times its compiles at 1 thread too: the 1-thread device is done with it.
      [[ "$t" == 1 && " ${THREADS[*]} " == *" 2 "* ]] && continue
      also=()
      [[ "$t" -gt 1 ]] && also=(--also-threads 1)
      for ((i = 0; i < ${#EW_KEYS[@]}; i++)); do
        out_of_time && { echo "make_dataset: --hours $HOURS reached"; break 3; }
        wait_for_builds
        key="${EW_KEYS[$i]}"
        # The whole space: `tune` counts the records already there, so a re-run measures what is missing.
        "$TP" tune --workload "$key" --isa "$isa" --threads "$t" "${also[@]}" --provider halide --tuner grid --trials 36 \
          --seed 1 --no-transfer --early-stopping 0 --repeat 3 --min-repeat-ms 10 --db "$DB" --json \
          > "$WORK/last_tune.json" 2> "$WORK/last_tune.log" ||
          echo "make_dataset: tune of element-wise workload $key on $isa t$t failed (see $WORK/last_tune.log); going on"
        echo "[element-wise grid $((i + 1))/${#EW_KEYS[@]}] $isa t$t ${key%%|*} ($(( ($(date +%s) - START) / 60 )) min)"
      done
    done
  done
  export_dataset
  exit 0
fi
if [[ "$SYNTHETIC_REPEAT" == 1 || "$SYNTHETIC" != 0 ]]; then
  [[ "$SYNTHETIC" =~ ^[0-9]+$ ]] || { echo "make_dataset: --synthetic takes a positive count of configs per workload" >&2; exit 2; }
  [[ "$SYNTHETIC_SET" =~ ^(memory|matmul|fc|all)$ ]] || { echo "make_dataset: --synthetic-set takes memory, matmul, fc or all" >&2; exit 2; }
  [[ "$SYNTHETIC_TUNER" =~ ^(random|xgb|ga)$ ]] || { echo "make_dataset: --synthetic-tuner takes random, xgb or ga" >&2; exit 2; }
fi
# The keys of a set of scripts/synthetic_workloads.py (or of all) into SYN_KEYS.
synthetic_keys() {
  local kind=()
  [[ -n "$SYNTHETIC_KIND" ]] && kind=(--kind "$SYNTHETIC_KIND")
  mapfile -t SYN_KEYS < <(python3 "$ROOT/scripts/synthetic_workloads.py" --tensorperf "$TP" --set "$1" "${kind[@]}")
  [[ ${#SYN_KEYS[@]} -gt 0 ]] || { echo "make_dataset: scripts/synthetic_workloads.py gave no keys" >&2; exit 1; }
}
if [[ "$SYNTHETIC_REPEAT" == 1 ]]; then
  # One repeat database per set, device and thread count (the memory set's predates the sets' names).
  sets=(memory matmul fc)
  [[ "$SYNTHETIC_SET" != all ]] && sets=("$SYNTHETIC_SET")
  for set in "${sets[@]}"; do
    synthetic_keys "$set"
    tag=""
    [[ "$set" != memory ]] && tag="-$set"
    [[ -n "$SYNTHETIC_KIND" ]] && tag="$tag-$SYNTHETIC_KIND"
    for isa in "${ISAS[@]}"; do
      for t in "${THREADS[@]}"; do
        rep_db="$WORK/synthetic-repeat$tag-$isa-t$t.db"
        [[ -f "$rep_db.done" ]] && { echo "make_dataset: synthetic repeat ($set) on $isa t$t already imported"; continue; }
        for ((i = 0; i < ${#SYN_KEYS[@]}; i++)); do
          out_of_time && { echo "make_dataset: --hours $HOURS reached"; break 4; }
          wait_for_builds
          # No transfer: the seed configs alone, as the workload's first measurement had them.
          "$TP" tune --workload "${SYN_KEYS[$i]}" --isa "$isa" --threads "$t" --tuner random --trials 3 --seed 1 \
            --no-transfer --early-stopping 0 --repeat 3 --min-repeat-ms 10 --db "$rep_db" --json \
            > "$WORK/last_tune.json" 2> "$WORK/last_tune.log" ||
            echo "make_dataset: repeat of synthetic workload ${SYN_KEYS[$i]} on $isa t$t failed (see $WORK/last_tune.log); going on"
          echo "[synthetic repeat ($set) $((i + 1))/${#SYN_KEYS[@]}] $isa t$t"
        done
        "$TP" db export --all --db "$rep_db" > "$rep_db.jsonl"
        "$TP" db import --db "$DB" "$rep_db.jsonl" > /dev/null && touch "$rep_db.done"
        echo "make_dataset: synthetic repeat ($set) on $isa t$t: $(grep -c . "$rep_db.jsonl") records imported ($(records) in all)"
      done
    done
  done
  export_dataset
  exit 0
fi
if [[ "$SYNTHETIC" != 0 ]]; then
  synthetic_keys "$SYNTHETIC_SET"
  for isa in "${ISAS[@]}"; do
    for t in "${THREADS[@]}"; do
      for ((i = 0; i < ${#SYN_KEYS[@]}; i++)); do
        out_of_time && { echo "make_dataset: --hours $HOURS reached"; break 3; }
        key="${SYN_KEYS[$i]}"
        wait_for_builds
        before=$(records)
        also=()
        [[ "$t" -gt 1 ]] && also=(--also-threads 1)
        "$TP" tune --workload "$key" --isa "$isa" --threads "$t" "${also[@]}" --tuner "$SYNTHETIC_TUNER" --trials "$SYNTHETIC" --seed 1 \
          --early-stopping 0 --repeat 3 --min-repeat-ms 10 --db "$DB" --json > "$WORK/last_tune.json" 2> "$WORK/last_tune.log" ||
          echo "make_dataset: tune of synthetic workload $key on $isa t$t failed (see $WORK/last_tune.log); going on"
        echo "[synthetic $SYNTHETIC_TUNER $((i + 1))/${#SYN_KEYS[@]}] $isa t$t ${key%%|*}: +$(( $(records) - before )) records ($(( ($(date +%s) - START) / 60 )) min)"
      done
    done
  done
  export_dataset
  exit 0
fi
declare -A NTASKS
for s in "${STEPS[@]}"; do NTASKS["$s"]=$(tasks_of $s); done
echo "make_dataset: devices: ISA ${ISAS[*]} x threads ${THREADS[*]}; ${#STEPS[@]} model/batch steps; $ROUNDS rounds of $PER_ROUND trials per workload; $(records) records so far"
for ((round = FIRST_ROUND; round <= ROUNDS; round++)); do
  tuner="${TUNERS[$(( (round - 1) % ${#TUNERS[@]} ))]}"
  for isa in "${ISAS[@]}"; do
    for t in "${THREADS[@]}"; do
      for s in "${STEPS[@]}"; do
        out_of_time && { echo "make_dataset: --hours $HOURS reached"; break 4; }
        read -r model batch <<< "$s"
        trials=$(( round * PER_ROUND * NTASKS["$s"] ))
        wait_for_builds
        before=$(records)
        t0=$(date +%s)
        also=()
        [[ "$t" -gt 1 ]] && also=(--also-threads 1)
        "$TP" tune --model "$model" --batch "$batch" --isa "$isa" --threads "$t" "${also[@]}" --tuner "$tuner" --trials "$trials" \
          --seed "$round" --early-stopping 0 --repeat 3 --min-repeat-ms 10 --db "$DB" --json \
          > "$WORK/last_tune.json" 2> "$WORK/last_tune.log" ||
          echo "make_dataset: tune of $model b$batch on $isa t$t failed (see $WORK/last_tune.log); going on"
        after=$(records)
        echo "[round $round/$ROUNDS $tuner] $isa t$t $model b$batch: +$((after - before)) records in $(( $(date +%s) - t0 )) s ($after in all, $(( ($(date +%s) - START) / 60 )) min)"
      done
      # The noise floor: one model's default configs measured again, later than the first time: the
      # round's model, or the next one whose defaults this device does not have measured twice yet.
      rep="$WORK/repeat-r$round-$isa-t$t.jsonl"
      m=""
      if [[ ! -s "$rep.done" ]]; then
        repeated="$(repeated_models "$(device_key "$isa" "$t")")"
        for ((i = 0; i < ${#MODELS[@]}; i++)); do
          c="${MODELS[$(( (round - 1 + i) % ${#MODELS[@]} ))]}"
          [[ "$repeated" == *",$c b1,"* ]] || { m="$c"; break; }
        done
      fi
      if [[ -n "$m" ]]; then
        wait_for_builds
        "$TP" profile --model "$m" --isa "$isa" --threads "$t" --configs-per-task 1 --repeat 3 --min-repeat-ms 10 \
          --out "$rep" --json > /dev/null 2>> "$WORK/last_repeat.log" &&
          "$TP" db import --db "$DB" "$rep" > /dev/null && echo "$m" > "$rep.done"
        echo "[round $round/$ROUNDS repeat] $isa t$t $m defaults measured again ($(records) in all)"
      fi
    done
  done
done

# Noise-floor top-up: while fewer than 2% of a device's records, or of the whole dataset's, are configs
# measured twice, one more model's default configs measured again on the devices of this machine (models
# whose defaults the device does not yet have measured twice), a model at a time on every device, so the
# devices stay even. The devices of other CPUs can only be topped up on their own machines; until then
# this machine's devices carry the dataset's share.
short_of_pairs() {  # true while device $1, or the dataset, has fewer configs measured twice than 2% of its records
  local n pairs all all_pairs
  read -r n pairs < <("$TP" db export --all --db "$DB" --device "$1" 2> /dev/null | python3 "$ROOT/scripts/dataset_readme.py" --pairs-of -)
  read -r all all_pairs < <("$TP" db export --all --db "$DB" 2> /dev/null | python3 "$ROOT/scripts/dataset_readme.py" --pairs-of -)
  echo "make_dataset: $1: $pairs configs measured twice in $n records; the dataset: $all_pairs in $all"
  (( pairs * 50 < n || all_pairs * 50 < all ))
}
# Per device: its key, and the models whose defaults it already has measured twice (by a round's
# repeat, a top-up, or an earlier session's): measuring them again would only add third measurements.
# A device found at 2%, with the dataset at 2%, stays there (only this loop adds records).
declare -A KEYS REPEATED ENOUGH
for isa in "${ISAS[@]}"; do
  for t in "${THREADS[@]}"; do
    KEYS["$isa $t"]="$(device_key "$isa" "$t")"
    REPEATED["$isa $t"]="$(repeated_models "${KEYS["$isa $t"]}")"
  done
done
for m in "${MODELS[@]}"; do
  for isa in "${ISAS[@]}"; do
    for t in "${THREADS[@]}"; do
      out_of_time && { echo "make_dataset: --hours $HOURS reached"; break 3; }
      key="${KEYS["$isa $t"]}"
      [[ -n "$key" ]] || continue
      [[ "${REPEATED["$isa $t"]}" == *",$m b1,"* || -n "${ENOUGH["$isa $t"]:-}" ]] && continue
      rep="$WORK/repeat-top-$m-$isa-t$t.jsonl"
      short_of_pairs "$key" || { ENOUGH["$isa $t"]=1; continue; }
      wait_for_builds
      "$TP" profile --model "$m" --isa "$isa" --threads "$t" --configs-per-task 1 --repeat 3 --min-repeat-ms 10 \
        --out "$rep" --json > /dev/null 2>> "$WORK/last_repeat.log" &&
        "$TP" db import --db "$DB" "$rep" > /dev/null
      echo "[noise floor] $isa t$t $m defaults measured again ($(records) in all)"
    done
  done
done
export_dataset
