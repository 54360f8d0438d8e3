# The host's time building a Llama-1B decode step, base against new, with MLX's launch call timed
# per kernel (benchmarks/host_profile.py):  . .device/bootstrap.sh && . benchmarks/device/host_profile_pair.sh
. benchmarks/device/common.sh
for side in new base; do
  $side benchmarks/host_profile.py --model llama-1b --steps 40 > "$OUT/hp-$side.log" 2>&1
  echo "$side: $(grep -E '^build|with MLX' "$OUT/hp-$side.log" | tr '\n' ' ')"
done
grep -A12 "with MLX" "$OUT/hp-new.log" | head -14
