#!/usr/bin/env bash
# One device call: install carried wheels, run the GPU tests, benchmark the solutions. Usage on the device:
#   bash benchmarks/gpu_session.sh PART   (PART: smoke | lint | bench | throughput)
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
  && export PYTHONPATH=/tmp/site:$PWD:${PYTHONPATH:-} RAY_AUTH_MODE=disabled
export PYTHONUNBUFFERED=1 KERNELGYM_CACHE=/tmp/kgcache
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
nvidia-smi --query-gpu=name,memory.total,clocks.sm,clocks.mem --format=csv | tee "$OUT/gpu.txt"
python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"
case "${1:-smoke}" in
  smoke)
    python3 -c "from kernelgym.hardware import detect, measure_ceilings; print(detect().to_json()); print(measure_ceilings())" | tee "$OUT/ceilings.txt"
    timeout 200 python3 -m pytest -q -s tests/gpu 2>&1 | tee "$OUT/gpu_tests.txt"
    timeout 300 python3 benchmarks/bench_solutions.py --repeats 1 --profile quick --json "$OUT/bench_quick.json" 2>&1 | tee "$OUT/bench_quick.txt"
    ;;
  lint)
    timeout 560 python3 -m kernelgym.cli tasks lint --device cuda:0 --json "$OUT/lint_gpu.json" -v 2>&1 | tee "$OUT/lint_gpu.txt"
    ;;
  bench)
    timeout 560 python3 benchmarks/bench_solutions.py --repeats 5 --profile full --json "$OUT/bench_full.json" --budget-s 480 2>&1 | tee "$OUT/bench_full.txt"
    ;;
esac
