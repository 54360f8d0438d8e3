# A decode step on the lent GPU, base against new: the host profile (build, encode, evaluated step)
# of the Llama-1B and -8B shapes, then every config of each decode-step kernel at the 8B shapes
# (benchmarks/decode_configs.py, new tree):  . .device/bootstrap.sh && . benchmarks/device/decode_pair.sh
. benchmarks/device/common.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"
T0=$(date +%s)
for m in llama-1b llama-8b; do
  for side in new base; do
    $side benchmarks/host_profile.py --model $m --steps 30 > "$OUT/hp-$side-$m.log" 2>&1
    echo "$side $m: $(grep -E '^build' "$OUT/hp-$side-$m.log")"
  done
done
grep -A10 "with MLX" "$OUT/hp-new-llama-8b.log" | head -8
PYTHONPATH=/tmp/mfnew:$PYTHONPATH timeout $(( 540 - ($(date +%s) - T0) )) python3 benchmarks/decode_configs.py \
  > "$OUT/decode_configs.log" 2>&1
grep -v "^    next" "$OUT/decode_configs.log" | cut -c1-230
echo "elapsed $(( $(date +%s) - T0 )) s"
