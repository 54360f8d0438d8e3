# ncu's counters for one launch of the library matmul 4096^3 fp16 on wgmma (128x256x64, 8 warps, 3 stages)
# beside the same config on mma.sync (docs/dot.md's profile of the wgmma path):
#     . .device/bootstrap.sh >/dev/null 2>&1; . benchmarks/device/wgmma_ncu.sh
. benchmarks/device/common.sh
export PYTHONPATH=/tmp/mfnew:${PYTHONPATH:-}
STALLS=""
for r in long_scoreboard short_scoreboard mio_throttle math_pipe_throttle barrier wait not_selected selected \
         dispatch_stall lg_throttle no_instruction; do
  STALLS="$STALLS,smsp__average_warps_issue_stalled_${r}_per_issue_active.ratio"
done
METRICS="gpu__time_duration.sum,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,\
sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,\
sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,\
dram__throughput.avg.pct_of_peak_sustained_elapsed,smsp__issue_active.avg.pct_of_peak_sustained_active$STALLS"
cat > /tmp/one_mm.py <<'PY'
import sys, mlx.core as mx, metalforge as mf
from metalforge.kernels import matmul
a, b = (mx.random.normal((4096, 4096)).astype(mx.float16) for _ in range(2))
for wgmma in (True, False):
    c = matmul.matmul_kernel.fn[(32 * 16,)](a, b, mf.empty((4096, 4096), mx.float16), 4096, 4096, 4096, BLOCK_M=128,
        BLOCK_N=256, BLOCK_K=64, GROUP_M=8, num_warps=8, num_stages=3, wgmma=wgmma)
    mx.eval(c)
PY
timeout 200 ncu --clock-control none --kernel-name regex:matmul_kernel --launch-count 2 --csv --page raw \
  --metrics "$METRICS" python3 /tmp/one_mm.py > "$OUT/ncu_wgmma.csv" 2> "$OUT/ncu_wgmma.err"
echo "ncu rc $?"
python3 - "$OUT/ncu_wgmma.csv" <<'PY'
import csv, sys
rows = [r for r in csv.reader(l for l in open(sys.argv[1]).read().splitlines() if l.startswith('"'))]
head = rows[0]
for d in rows[2:]:
    rec = dict(zip(head, d))
    stalls = sorted(((float(v or 0), k.split("stalled_")[1].split("_per")[0]) for k, v in rec.items() if "issue_stalled" in k), reverse=True)[:6]
    print(" ".join(f"{k.split('__')[-1][:34]}={v}" for k, v in rec.items() if "__" in k and "stalled" not in k))
    print("   stalls:", ", ".join(f"{n} {v:.2f}" for v, n in stalls))
PY
