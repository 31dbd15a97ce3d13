"""Which launch shapes of a streaming elementwise Triton kernel reach eager PyTorch's bandwidth on this GPU.

Issue #16 item 3 wants every bundled Triton solution at >= 1.0x eager; the ReLU, sigmoid and GELU solutions (one read
and one write per element, at the tasks' full sizes) stayed at 0.93-0.98x on the H200 whatever their autotune lists
picked. This script times, alone and with ``triton.testing.do_bench`` (L2 flushed between calls), eager PyTorch and a
grid of variants of one kernel on each task's full-size input:

* ``BLOCK`` elements per program and ``num_warps``;
* cache hints: plain, or loads with ``evict_first`` and stores with ``.cs`` (streaming: neither is read again);
* one program per block, or a *persistent* grid (a few programs per SM, each looping over blocks).

It prints each variant's median, its bandwidth and eager's median over it (above 1.0: faster than eager), fastest
first, and writes them to ``--json``. Needs a CUDA GPU:

    python benchmarks/streaming_variants.py --ops relu,sigmoid,gelu --json streaming.json
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys

import torch
import triton
import triton.language as tl

OPS = {  # name: (eager, rows, columns, input scale) at the tasks' full sizes (kernelgym/suite/level1/15, 17, 19)
    "relu": (torch.relu, 12288, 100000, 1.0),
    "sigmoid": (torch.sigmoid, 24576, 49152, 3.0),
    "gelu": (torch.nn.functional.gelu, 18000, 65536, 2.0),
}
OP_CODES = {"relu": 0, "sigmoid": 1, "gelu": 2}


@triton.jit
def _apply(x, OP: tl.constexpr):
    if OP == 0:
        return tl.where(x > 0, x, 0.0)
    elif OP == 1:
        return 1.0 / (1.0 + tl.exp(-x))
    else:
        return 0.5 * x * (1.0 + tl.math.erf(x * 0.7071067811865476))


@triton.jit
def _stream_block(x_ptr, y_ptr, start, n, BLOCK: tl.constexpr, OP: tl.constexpr, HINTS: tl.constexpr,
                  EVEN: tl.constexpr):
    offs = start + tl.arange(0, BLOCK)
    if EVEN:
        if HINTS:
            x = tl.load(x_ptr + offs, eviction_policy="evict_first")
            tl.store(y_ptr + offs, _apply(x.to(tl.float32), OP).to(y_ptr.dtype.element_ty), cache_modifier=".cs")
        else:
            x = tl.load(x_ptr + offs)
            tl.store(y_ptr + offs, _apply(x.to(tl.float32), OP).to(y_ptr.dtype.element_ty))
    else:
        mask = offs < n
        if HINTS:
            x = tl.load(x_ptr + offs, mask=mask, other=0.0, eviction_policy="evict_first")
            tl.store(y_ptr + offs, _apply(x.to(tl.float32), OP).to(y_ptr.dtype.element_ty), mask=mask,
                     cache_modifier=".cs")
        else:
            x = tl.load(x_ptr + offs, mask=mask, other=0.0)
            tl.store(y_ptr + offs, _apply(x.to(tl.float32), OP).to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _stream(x_ptr, y_ptr, n, n_blocks, BLOCK: tl.constexpr, OP: tl.constexpr, HINTS: tl.constexpr,
            EVEN: tl.constexpr, PERSISTENT: tl.constexpr):
    pid = tl.program_id(0)
    if PERSISTENT:
        for b in range(pid, n_blocks, tl.num_programs(0)):
            _stream_block(x_ptr, y_ptr, b * BLOCK, n, BLOCK, OP, HINTS, EVEN)
    else:
        _stream_block(x_ptr, y_ptr, pid * BLOCK, n, BLOCK, OP, HINTS, EVEN)


def launch(x: torch.Tensor, y: torch.Tensor, op: str, block: int, warps: int, hints: bool, persistent: int,
           sms: int):
    """One launch of a variant; ``persistent`` programs per SM of the ``sms`` (0: one program per block)."""
    n = x.numel()
    n_blocks = triton.cdiv(n, block)
    grid = (min(n_blocks, sms * persistent),) if persistent else (n_blocks,)
    _stream[grid](x, y, n, n_blocks, BLOCK=block, OP=OP_CODES[op], HINTS=hints, EVEN=n % block == 0,
                  PERSISTENT=bool(persistent), num_warps=warps)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ops", default="relu,sigmoid,gelu")
    ap.add_argument("--blocks", default="2048,4096,8192")
    ap.add_argument("--warps", default="4,8")
    ap.add_argument("--persistent", default="0,4,8", help="programs per SM; 0: one program per block")
    ap.add_argument("--rep", type=int, default=100, help="do_bench repetition time per variant (ms)")
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    if not torch.cuda.is_available():
        print("streaming_variants: needs a CUDA GPU", file=sys.stderr)
        return 2
    print(torch.cuda.get_device_name(), "torch", torch.__version__, "triton", triton.__version__, flush=True)
    sms = torch.cuda.get_device_properties(0).multi_processor_count  # read once, not in the timed launches
    rows = []
    for op in args.ops.split(","):
        eager, r, c, scale = OPS[op]
        x = torch.randn(r, c, device="cuda") * scale
        y = torch.empty_like(x)
        moved = 2 * x.numel() * x.element_size()
        eager_ms = triton.testing.do_bench(lambda: eager(x), rep=args.rep)
        print(f"{op}: eager {eager_ms:.4f} ms, {moved / eager_ms / 1e9:.3f} TB/s", flush=True)
        results = []
        for block, warps, hints, persistent in itertools.product(
                [int(b) for b in args.blocks.split(",")], [int(w) for w in args.warps.split(",")], (False, True),
                [int(p) for p in args.persistent.split(",")]):
            launch(x, y, op, block, warps, hints, persistent, sms)
            torch.cuda.synchronize()
            error = float((y - eager(x)).abs().max())
            ms = triton.testing.do_bench(lambda: launch(x, y, op, block, warps, hints, persistent, sms),
                                        rep=args.rep)
            results.append({"op": op, "block": block, "warps": warps, "hints": hints, "persistent": persistent,
                            "ms": ms, "tb_s": moved / ms / 1e9, "eager_ms": eager_ms, "vs_eager": eager_ms / ms,
                            "max_abs_err": error})
        for row in sorted(results, key=lambda row: row["ms"]):
            print(f"  BLOCK {row['block']:5d} warps {row['warps']:2d} hints {row['hints']!s:5} persistent "
                  f"{row['persistent']}: {row['ms']:.4f} ms {row['tb_s']:.3f} TB/s  {row['vs_eager']:.4f}x eager "
                  f"(err {row['max_abs_err']:.1e})", flush=True)
        rows += results
        del x, y
        torch.cuda.empty_cache()
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
