# The why of the tl.dot gap and the quantized matmul's untuned default, on the lent GPU (one call
# after the bootstrap): every config of the prefill qmm and flash attention (decode_configs.py), then ncu's
# counters for one launch each of our matmul 4096^3 (dot_bench.py's first config) and causal flash
# attention d64 L=2048 (Triton's build of the same source, which ncu sees too, beside it).
#     . .device/bootstrap.sh >/dev/null 2>&1; . benchmarks/device/dot_probe.sh
. benchmarks/device/common.sh
export PYTHONPATH=/tmp/mfnew:${PYTHONPATH:-}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$OUT/gpu.txt"
T0=$(date +%s)
timeout 260 python3 -u benchmarks/decode_configs.py --kernels qmm,flash --stages 1,2 --launches 20 --reps 3 > "$OUT/qmm_configs.log" 2>&1
grep -v "^    next" "$OUT/qmm_configs.log" | cut -c1-200 | tail -14
STALLS=""
for r in long_scoreboard short_scoreboard mio_throttle math_pipe_throttle barrier wait not_selected selected \
         dispatch_stall lg_throttle no_instruction tex_throttle branch_resolving imc_miss misc; do
  STALLS="$STALLS,smsp__average_warps_issue_stalled_${r}_per_issue_active.ratio"
done
METRICS="gpu__time_duration.sum,launch__registers_per_thread,launch__occupancy_limit_registers,\
launch__occupancy_limit_shared_mem,sm__warps_active.avg.pct_of_peak_sustained_active,\
sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,\
sm__inst_executed_pipe_tensor_op_hmma.sum,smsp__inst_executed.sum,\
l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,\
l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,\
smsp__issue_active.avg.pct_of_peak_sustained_active$STALLS"
for row in mm4096 fa_d64_L2048; do
  timeout 150 ncu --clock-control none --kernel-name regex:'matmul_kernel|flash_attention' --launch-count 2 \
    --csv --page raw --metrics "$METRICS" \
    env PYTHONPATH=/tmp/mfnew:${PYTHONPATH:-} python3 benchmarks/dot_bench.py --out "$OUT/$row" --only $row --reps 1 \
    > "$OUT/ncu_$row.csv" 2> "$OUT/ncu_$row.err"
  echo "ncu $row: rc $? $(grep -c '^"' "$OUT/ncu_$row.csv") csv lines"
done
python3 - "$OUT" <<'EOF'
import csv, sys, pathlib
for f in sorted(pathlib.Path(sys.argv[1]).glob("ncu_*.csv")):
    rows = [r for r in csv.reader(l for l in f.read_text().splitlines() if l.startswith('"'))]
    if len(rows) < 3:
        continue
    head, data = rows[0], rows[2:]  # rows[1]: units
    for d in data:
        rec = dict(zip(head, d))
        name = rec.get("Kernel Name", "?")[:40]
        stalls = sorted(((float(v or 0), k.split("stalled_")[1].split("_per")[0]) for k, v in rec.items()
                         if "issue_stalled" in k), reverse=True)[:6]
        keep = {k.split("__")[-1][:38]: v for k, v in rec.items() if "__" in k and "stalled" not in k}
        print(f.stem, name, "|", " ".join(f"{k}={v}" for k, v in keep.items()))
        print("   stalls per issue:", ", ".join(f"{n} {v:.2f}" for v, n in stalls))
EOF
echo "elapsed $(( $(date +%s) - T0 )) s"
