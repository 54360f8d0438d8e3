# The issues' tables at this commit on the lent GPU, in calls that each stay under the 600 s limit
# (after the bootstrap; PART picks the call):
#   PART=1: same_source.py (issue 15's table);  PART=2: energy_bench.py (issue 23) and dot_bench.py
#   (issue 17);  PART=3: lm_bench.py tuned, the Llama-3-8B shape (issue 21); PART=4: the same untuned,
#   then tuned, one process each;  PART=5: wgmma_probe.py (issue 17's wgmma building blocks), flash
#   attention's rows at .device/base.tgz and here (a before/after pair);  PART=6: the vector add rows
#   of same_source.py;  PART=7: wgmma_probe.py (with the compiler's wgmma path) and dot_bench.py;
#   PART=8: lm_bench.py untuned on Qwen2-1.5B and the 8B with the fp32 greedy check (mlx_lm's wheel in
#   .device/wheels), then host_profile.py on the 8B;  PART=9: wgmma_probe.py --library-only (the
#   compiler's wgmma matmul, flash attention and qmm, checked and timed against mma.sync), then the
#   matmul 4096^3 row of dot_bench.py at .device/base.tgz and here (a before/after pair);  PART=10:
#   lm_bench.py untuned ($MODELS, default Qwen2-1.5B and the 8B; fp32 greedy on $GREEDY, default the 1B; $LM s), then
#   dot_bench.py ($DOT s),
#   with LMBASE=1 the same at .device/base.tgz;  PART=11:
#   energy_bench.py with the budget for its fronts and the contention table ($BUDGET s, default 500;
#   $KERNELS: the joules-per-call table's kernels, default all);  PART=12: dot_bench.py at
#   .device/base.tgz and here (a before/after pair, $DOT s each, default 170; $ONLY: its rows whose
#   key contains it), then wgmma_probe.py
#   --library-only here (the library's dots checked at partial tiles and timed, qmm beside MLX);
#   PART=13: the library's tests and then the conformance suite on the CUDA back end (GPU correctness of the
#   generated code: $TESTS s), wgmma_probe.py --qmm-only (both dot paths checked, then timed), dot_bench.py
#   with what is left;  PART=14: lm_bench.py untuned on $MODELS (default Qwen2-1.5B) at .device/base.tgz and here,
#   host_profile.py on its first model (the prefill's build beside its evaluated time), then the library's
#   tests (test_library.py, test_qmm_split.py) and the conformance suite on the CUDA back end with what is
#   left;  PART=15: the Triton-port conformance tests from $FROM on (default: all; and $ALSO; -k matches
#   substrings, so a name also takes longer names) on the CUDA back end for $LIMIT s (default 560),
#   failures with their short tracebacks;  PART=16: codegen 36 and the fused prefill kernels: the
#   tests of what they changed on the CUDA back end first (edge vectors, rows at odd strides, qmm_swiglu,
#   qmm_qkv), then same_source.py's odd-size rows at .device/base.tgz and here (this tree's script
#   on either package), then lm_bench.py untuned on $MODELS (default Qwen2-1.5B) at both;  PART=17:
#   codegen 37 (fused slot loops): same_source.py's $SSPART rows (default aligned; 280 s a side) at
#   .device/mid.tgz (the commit before it) and here, this tree's script on either package;  PART=18:
#   the tests of codegen 36-37 and the fused prefill kernels on the CUDA back end (PART=16's), then
#   same_source.py, all rows, here (issue 15's table at this commit);  PART=19: same_source.py's
#   aligned and misaligned rows at .device/mid.tgz (before codegen 37; this tree's script), then
#   lm_bench.py untuned on $MODELS (default Qwen2-1.5B and the 8B) here, in what is left of $LIMIT s
#   (default 585);  PART=20: codegen 39 (an edge's vectors loaded together): PART=18's tests and the edge
#   test on the CUDA back end, same_source.py, all rows, here, its odd rows at .device/mid.tgz (the
#   commit before), then odd_ncu.sh on either tree;  PART=21: a change to the quantized kernels
#   before/after: their tests on the CUDA back end, then decode_configs.py --default-only (the decode
#   step's quantized products and the prefill's qmm, untuned, against MLX's ops) at .device/mid.tgz and here;
#   PART=22: the issue tables' first call at one commit: the GPU tests of codegen 36-41 and the quantized
#   kernels, same_source.py (all rows), decode_configs.py --default-only at .device/mid.tgz and here, then
#   dot_bench.py in what is left of 585 s (the second call: PART=10 with GREEDY=llama-8b, then PART=11).
#     . .device/bootstrap.sh >/dev/null 2>&1; PART=1 . benchmarks/device/tables.sh
. benchmarks/device/common.sh
export PYTHONPATH=/tmp/mfnew:${PYTHONPATH:-}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$OUT/gpu.txt"
T0=$(date +%s)
left() { echo $(( ${1:-570} - ($(date +%s) - T0) )); }
# the test suites on the CUDA back end (the library's tests; the conformance suite's metalforge side):
# gpu_tests SECONDS PYTEST-ARGS...; each test's line in $OUT/tests.log, failures printed
gpu_tests() {
  local limit=$1; shift
  METALFORGE_BACKEND=cuda METALFORGE_CONFORMANCE_BACKEND=cuda timeout "$limit" python3 -m pytest -v \
    -p no:cacheprovider "$@" > "$OUT/tests.log" 2>&1
  echo "tests rc $?: $(grep -c " PASSED" "$OUT/tests.log") passed"
  grep -E " FAILED| ERROR|^E " "$OUT/tests.log" | head -24 | cut -c1-240
}
case "${PART:-1}" in
1) timeout $(left 560) python3 -u benchmarks/same_source.py --out "$OUT/same_source" > "$OUT/same_source.log" 2>&1
   echo "same_source rc $?"; grep -v "^ *$" "$OUT/same_source.log" | tail -26 | cut -c1-150 ;;
2) timeout 330 python3 -u benchmarks/energy_bench.py --out "$OUT/energy" --budget 250 > "$OUT/energy.log" 2>&1
   echo "energy rc $?"; grep -E "^\|" "$OUT/energy.log" | cut -c1-220 | head -40
   timeout $(left 570) python3 -u benchmarks/dot_bench.py --out "$OUT/dot" --budget $(( $(left 570) - 40 )) \
     > "$OUT/dot.log" 2>&1
   echo "dot rc $?"; cat "$OUT/dot/table.md" 2>/dev/null ;;
3) timeout $(left 570) python3 -u benchmarks/lm_bench.py --out "$OUT/lm" --models llama-8b --reps 3 \
     --tune-seconds 60 --greedy '' > "$OUT/lm.log" 2>&1
   echo "lm rc $?"; grep -E "^\| llama" "$OUT/lm.log" | tail -2 ;;
4) for tune in 0 60; do  # untuned, then tuned, one process each
     timeout $(left 570) python3 -u benchmarks/lm_bench.py --out "$OUT/lm$tune" --models llama-8b --reps 3 \
       --tune-seconds $tune --greedy '' > "$OUT/lm$tune.log" 2>&1
     echo "tune ${tune}s rc $?: $(grep -E "^\| llama" "$OUT/lm$tune.log" | tail -1)"
   done
   grep -A18 "^kernel " "$OUT/lm60.log" | cut -c1-140 ;;
5) timeout 150 python3 -u benchmarks/wgmma_probe.py --out "$OUT/wgmma" > "$OUT/wgmma.log" 2>&1
   echo "wgmma rc $?"; tail -9 "$OUT/wgmma.log" | cut -c1-200
   for side in base new; do
     $side benchmarks/dot_bench.py --out "$OUT/fa-$side" --only fa_ --budget 120 > "$OUT/fa-$side.log" 2>&1
     echo "fa $side rc $?"; tail -n +3 "$OUT/fa-$side/table.md" 2>/dev/null
   done ;;
6) timeout 120 python3 -u benchmarks/same_source.py --out "$OUT/same_source" --only "vector add" \
     > "$OUT/same_source.log" 2>&1
   echo "same_source rc $?"; grep -E "^vector" "$OUT/same_source.log" | cut -c1-150 ;;
7) timeout 200 python3 -u benchmarks/wgmma_probe.py --out "$OUT/wgmma" > "$OUT/wgmma.log" 2>&1
   echo "wgmma rc $?"; grep -E "wait|MLX|library|flash" "$OUT/wgmma.log" | cut -c1-220
   timeout $(left 575) python3 -u benchmarks/dot_bench.py --out "$OUT/dot" --budget $(( $(left 575) - 60 )) \
     > "$OUT/dot.log" 2>&1
   echo "dot rc $?"; tail -n +3 "$OUT/dot/table.md" 2>/dev/null ;;
8) timeout $(left 420) python3 -u benchmarks/lm_bench.py --out "$OUT/lm" --models qwen2-1.5b,llama-8b --reps 3 \
     --tune-seconds 0 --greedy llama-1b --budget 200 > "$OUT/lm.log" 2>&1
   echo "lm rc $?"; grep -E "^\| (llama|qwen)|greedy" "$OUT/lm.log" | tail -5 | cut -c1-300
   timeout $(left 560) python3 -u benchmarks/host_profile.py --model llama-8b --steps 40 > "$OUT/hp.log" 2>&1
   echo "host_profile rc $?"; grep -E "^prefill|^build|launch call timed|inside" -A4 "$OUT/hp.log" | cut -c1-260 ;;
9) timeout 260 python3 -u benchmarks/wgmma_probe.py --library-only --out "$OUT/wgmma" > "$OUT/wgmma.log" 2>&1
   echo "wgmma rc $?"; grep -E "MLX|library|flash|qmm" "$OUT/wgmma.log" | cut -c1-700
   for side in base new; do
     $side benchmarks/dot_bench.py --out "$OUT/mm-$side" --only mm4096 --budget 100 > "$OUT/mm-$side.log" 2>&1
     echo "mm $side rc $?"; tail -n +3 "$OUT/mm-$side/table.md" 2>/dev/null; grep -E "config|FAILED" "$OUT/mm-$side.log" | tail -4 | cut -c1-200
   done ;;
10) timeout $(( ${LM:-150} + 20 )) python3 -u benchmarks/lm_bench.py --out "$OUT/lm" --models ${MODELS:-qwen2-1.5b,llama-8b} \
     --reps 3 --tune-seconds 0 --greedy "${GREEDY-llama-1b}" --budget ${LM:-150} > "$OUT/lm.log" 2>&1
   echo "lm rc $?"; grep -E "^\| (llama|qwen)|greedy" "$OUT/lm.log" | tail -5 | cut -c1-300
   timeout $(( ${DOT:-200} + 50 )) python3 -u benchmarks/dot_bench.py --out "$OUT/dot" --budget ${DOT:-200} \
     > "$OUT/dot.log" 2>&1
   echo "dot rc $?"; tail -n +3 "$OUT/dot/table.md" 2>/dev/null
   [ -n "${LMBASE:-}" ] && base benchmarks/lm_bench.py --out "$OUT/lm-base" --models ${MODELS:-qwen2-1.5b,llama-8b} --reps 3 --tune-seconds 0 \
     --greedy '' --budget $(( $(left 560) - 30 )) > "$OUT/lm-base.log" 2>&1
   echo "lm base rc $?"; grep -E "^\| (llama|qwen)" "$OUT/lm-base.log" | tail -2 | cut -c1-300 ;;
11) timeout $(( ${BUDGET:-500} + 60 )) python3 -u benchmarks/energy_bench.py --out "$OUT/energy" --budget ${BUDGET:-500} \
     ${KERNELS:+--kernels $KERNELS} > "$OUT/energy.log" 2>&1
   echo "energy rc $?"; grep -E "^\||SKIPPED|saves" "$OUT/energy.log" | cut -c1-220 | head -40 ;;
12) for side in base new; do
     timeout $(( ${DOT:-170} + 40 )) bash -c "$(declare -f $side); $side benchmarks/dot_bench.py --out $OUT/dot-$side \
       --budget ${DOT:-170} ${ONLY:+--only $ONLY}" > "$OUT/dot-$side.log" 2>&1
     echo "dot $side rc $?"; tail -n +3 "$OUT/dot-$side/table.md" 2>/dev/null | cut -c1-160
   done
   timeout $(left 575) python3 -u benchmarks/wgmma_probe.py --library-only --out "$OUT/wgmma" > "$OUT/wgmma.log" 2>&1
   echo "wgmma rc $?"; grep -E "MLX|library|flash|qmm" "$OUT/wgmma.log" | cut -c1-400 ;;
13) gpu_tests ${TESTS:-200} --tb=line tests/kernels/test_library.py tests/conformance
   timeout 200 python3 -u benchmarks/wgmma_probe.py --qmm-only > "$OUT/qmm.log" 2>&1
   echo "qmm rc $?"; grep -E "qmm" "$OUT/qmm.log" | cut -c1-400
   timeout $(left 575) python3 -u benchmarks/dot_bench.py --out "$OUT/dot" --budget $(( $(left 575) - 40 )) \
     > "$OUT/dot.log" 2>&1
   echo "dot rc $?"; tail -n +3 "$OUT/dot/table.md" 2>/dev/null | cut -c1-160 ;;
14) for side in base new; do
     timeout 130 bash -c "$(declare -f $side); $side benchmarks/lm_bench.py --out $OUT/lm-$side --models \
       ${MODELS:-qwen2-1.5b} --reps 3 --tune-seconds 0 --greedy '' --budget 100" > "$OUT/lm-$side.log" 2>&1
     echo "lm $side rc $?"; grep -E "^\| (llama|qwen)" "$OUT/lm-$side.log" | tail -2 | cut -c1-300
   done
   first=$(echo ${MODELS:-qwen2-1.5b} | cut -d, -f1)
   timeout 150 python3 -u benchmarks/host_profile.py --model "$first" --prompt 512 --steps 20 > "$OUT/hp.log" 2>&1
   echo "host_profile rc $?"; grep -E "^prefill|^build|launch call timed|inside" -A4 "$OUT/hp.log" | cut -c1-260
   gpu_tests $(left 570) --tb=line tests/kernels/test_qmm_swiglu.py tests/kernels/test_qmm_qkv.py \
     tests/kernels/test_library.py tests/kernels/test_qmm_split.py tests/conformance ;;
15) names=$(awk -v from="${FROM:-}" 'BEGIN { on = (from == "") } /^def test_/ { sub(/\(.*/, "", $2);
     if ($2 == from) on = 1; if (on) print $2 }' tests/conformance/test_triton_port.py | paste -sd' ' \
     | sed 's/ / or /g')
   [ -n "$names" ] || { echo "no test named ${FROM:-} in test_triton_port.py"; names=none_at_all; }
   gpu_tests $(left ${LIMIT:-560}) --tb=short tests/conformance/test_triton_port.py -k "${ALSO:+$ALSO or }$names" ;;
16) gpu_tests 200 --tb=short tests/dsl/test_kernels.py tests/kernels/test_qmm_swiglu.py tests/kernels/test_qmm_qkv.py \
     tests/codegen/test_cuda_render.py -k "vector or offsets_of_unknown or edge or swiglu or qkv or add or wrapping or multiple_of or block_pointer"
   for side in base new; do
     root=/tmp/mf$side
     PYTHONPATH=$root:$PYTHONPATH timeout 100 python3 -u benchmarks/same_source.py --out "$OUT/ss-$side" \
       --label $side --part odd --launches 50 > "$OUT/ss-$side.log" 2>&1
     echo "same_source $side rc $?"; grep -E "odd n" "$OUT/ss-$side.log" | tail -2 | cut -c1-160
   done
   for side in base new; do
     timeout 110 bash -c "$(declare -f $side); $side benchmarks/lm_bench.py --out $OUT/lm-$side --models \
       ${MODELS:-qwen2-1.5b} --reps 3 --tune-seconds 0 --greedy '' --budget 90" > "$OUT/lm-$side.log" 2>&1
     echo "lm $side rc $?"; grep -E "^\| (llama|qwen)" "$OUT/lm-$side.log" | tail -2 | cut -c1-300
   done ;;
17) for part in ${SSPART:-aligned}; do
     for side in mid new; do
       PYTHONPATH=/tmp/mf$side:$PYTHONPATH timeout 280 python3 -u benchmarks/same_source.py \
         --out "$OUT/ss17-$side" --label $side-$part --part $part --launches 50 > "$OUT/ss17-$side-$part.log" 2>&1
       echo "same_source $side $part rc $?"; grep -vE "^#|^kernel|^ *$" "$OUT/ss17-$side-$part.log" | tail -12 | cut -c1-150
     done
   done ;;
18) gpu_tests 180 --tb=short tests/dsl/test_kernels.py tests/kernels/test_qmm_swiglu.py tests/kernels/test_qmm_qkv.py \
     tests/codegen/test_cuda_render.py -k "vector or offsets_of_unknown or edge or swiglu or qkv or add or wrapping or multiple_of or block_pointer or versioned"
   timeout $(left 585) python3 -u benchmarks/same_source.py --out "$OUT/ss18" --label new --launches 50 \
     > "$OUT/ss18.log" 2>&1
   echo "same_source rc $?"; grep -vE "^#|^kernel|^ *$" "$OUT/ss18.log" | grep -E "[0-9]e-" | cut -c1-150 ;;
19) for part in aligned misaligned; do
     lim=90; [ $part = aligned ] && lim=240
     PYTHONPATH=/tmp/mfmid:$PYTHONPATH timeout $lim python3 -u \
       benchmarks/same_source.py --out "$OUT/ss19-$part" --label mid-$part --part $part --launches 50 \
       > "$OUT/ss19-mid-$part.log" 2>&1
     echo "same_source mid $part rc $?"; grep -E "[0-9]e-" "$OUT/ss19-mid-$part.log" | cut -c1-150
   done
   timeout $(left ${LIMIT:-585}) python3 -u benchmarks/lm_bench.py --out "$OUT/lm19" --models \
     ${MODELS:-qwen2-1.5b,llama-8b} --reps 3 --tune-seconds 0 --greedy '' --budget $(( $(left ${LIMIT:-585}) - 30 )) \
     > "$OUT/lm19.log" 2>&1
   echo "lm rc $?"; grep -E "^\| (llama|qwen)" "$OUT/lm19.log" | tail -2 | cut -c1-300 ;;
20) gpu_tests 150 --tb=short tests/dsl/test_kernels.py tests/kernels/test_qmm_swiglu.py tests/kernels/test_qmm_qkv.py \
     tests/codegen/test_cuda_render.py -k "vector or offsets_of_unknown or edge or swiglu or qkv or add or wrapping or multiple_of or block_pointer or versioned"
   timeout 240 python3 -u benchmarks/same_source.py --out "$OUT/ss20" --label new --launches 50 > "$OUT/ss20.log" 2>&1
   echo "same_source rc $?"; grep -vE "^#|^kernel|^ *$" "$OUT/ss20.log" | grep -E "[0-9]e-" | cut -c1-150
   PYTHONPATH=/tmp/mfmid:$PYTHONPATH timeout 90 python3 -u benchmarks/same_source.py --out "$OUT/ss20-mid" \
     --label mid-odd --part odd --launches 50 > "$OUT/ss20-mid.log" 2>&1
   echo "same_source mid odd rc $?"; grep -E "[0-9]e-" "$OUT/ss20-mid.log" | cut -c1-150
   for tree in mid new; do
     echo "## odd_ncu $tree"; (TREE=$tree LIMIT=$(( $(left ${LIMIT:-585}) / 2 )) . benchmarks/device/odd_ncu.sh)
   done ;;
21) gpu_tests ${TESTS:-50} --tb=short tests/kernels/test_library.py tests/dsl/test_kernels.py -k "qmv or qmm or small_integers"
   for tree in mid new; do
     PYTHONPATH=/tmp/mf$tree:$PYTHONPATH timeout 75 python3 -u benchmarks/decode_configs.py --default-only \
       --kernels qmv,qmm --reps 5 > "$OUT/dc-$tree.log" 2>&1
     echo "decode_configs $tree rc $?"; grep -E "MLX [0-9]|difference" "$OUT/dc-$tree.log" | sed 's/; best.*//' | cut -c1-170
   done ;;
22) gpu_tests 110 --tb=short tests/dsl/test_kernels.py tests/kernels/test_qmm_swiglu.py tests/kernels/test_qmm_qkv.py \
     tests/codegen/test_cuda_render.py tests/kernels/test_library.py -k "vector or offsets_of_unknown or edge or swiglu or qkv or add or wrapping or multiple_of or block_pointer or versioned or qmv or qmm or small_integers or carried or ahead"
   timeout 200 python3 -u benchmarks/same_source.py --out "$OUT/ss22" --label new --launches 50 > "$OUT/ss22.log" 2>&1
   echo "same_source rc $?"; grep -E "[0-9]e-" "$OUT/ss22.log" | cut -c1-150
   for tree in mid new; do
     PYTHONPATH=/tmp/mf$tree:$PYTHONPATH timeout 75 python3 -u benchmarks/decode_configs.py --default-only \
       --kernels qmv,qmm --reps 5 > "$OUT/dc-$tree.log" 2>&1
     echo "decode_configs $tree rc $?"; grep -E "MLX [0-9]|difference" "$OUT/dc-$tree.log" | sed 's/; best.*//' | cut -c1-170
   done
   timeout $(left 585) python3 -u benchmarks/dot_bench.py --out "$OUT/dot" --budget $(( $(left 585) - 40 )) \
     > "$OUT/dot.log" 2>&1
   echo "dot rc $?"; tail -n +3 "$OUT/dot/table.md" 2>/dev/null | cut -c1-160 ;;
esac
echo "elapsed $(( $(date +%s) - T0 )) s"
