# ncu's counters for one launch each of same_source.py's one-tile softmax, ours and Triton's, at the
# odd row (4096 x 32001, rows 32008 apart) and the aligned one (4096 x 32000): why the odd row is
# 1.20x Triton's time while the aligned one is 0.95x (docs/benchmarks.md, 2026-12-07 third session).
# TREE=mid profiles .device/mid.tgz's compiler instead of this tree's (default new).
#     . .device/bootstrap.sh >/dev/null 2>&1; . benchmarks/device/odd_ncu.sh
. benchmarks/device/common.sh
export PYTHONPATH=/tmp/mf${TREE:-new}:${PYTHONPATH:-}
METRICS="gpu__time_duration.sum,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,\
smsp__inst_executed.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,\
dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,\
smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio"
cat > /tmp/odd_softmax.py <<'PY'
import sys
sys.path.insert(0, "benchmarks")
import mlx.core as mx, torch, metalforge as mf
from same_source import softmax_one_tile
from gpu_bench import triton_version
tk = triton_version(softmax_one_tile)
for cols, stride in ((32001, 32008), (32000, 32000)):
    x = mx.random.normal((4096, stride)).astype(mx.float16)
    mx.eval(softmax_one_tile[(4096,)](mf.empty((4096, stride), mx.float16), x, stride, stride, cols, BLOCK=32768,
                                      num_warps=16))
    xt = torch.randn(4096, stride, device="cuda", dtype=torch.float16)
    out = torch.empty_like(xt)
    tk[(4096,)](out, xt, stride, stride, cols, BLOCK=32768, num_warps=16)
    torch.cuda.synchronize()
PY
timeout ${LIMIT:-150} ncu --clock-control none --kernel-name regex:softmax_one_tile --launch-count 4 --csv --page raw \
  --metrics "$METRICS" python3 /tmp/odd_softmax.py > "$OUT/ncu_odd_${TREE:-new}.csv" 2> "$OUT/ncu_odd_${TREE:-new}.err"
echo "ncu rc $?"; tail -3 "$OUT/ncu_odd_${TREE:-new}.err" | cut -c1-200
python3 - "$OUT/ncu_odd_${TREE:-new}.csv" <<'PY'
import csv, sys
rows = [r for r in csv.reader(l for l in open(sys.argv[1]).read().splitlines() if l.startswith('"'))]
head = rows[0]
for d in rows[2:]:
    rec = dict(zip(head, d))
    print(rec.get("Kernel Name", "?")[:40], " ".join(f"{k.split('__')[-1][:30]}={v}" for k, v in rec.items() if "__" in k))
PY
