# lm_bench untuned, base against new, one model per process, alternating (docs/models.md's pairs):
#   . .device/bootstrap.sh && . benchmarks/device/lm_pair.sh
# Stops starting runs ~40 s before a 600 s call limit; prints one table row per run.
. benchmarks/device/common.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"
T0=$(date +%s)
for m in ${MODELS:-llama-1b llama-8b}; do
  for side in new base; do
    left=$(( 560 - ($(date +%s) - T0) )); [ $left -lt 60 ] && { echo "skip $side $m"; continue; }
    $side benchmarks/lm_bench.py --out "$OUT/lm-$side-$m" --models $m --tune-seconds 0 --greedy '' --reps 3 \
      > "$OUT/lm-$side-$m.log" 2>&1 &
    pid=$!; ( sleep $left; kill $pid 2>/dev/null ) & w=$!; wait $pid; kill $w 2>/dev/null
    echo "$side $m: $(grep "^| $m" "$OUT/lm-$side-$m.log" | tail -1)"
  done
done
echo "elapsed $(( $(date +%s) - T0 )) s"
