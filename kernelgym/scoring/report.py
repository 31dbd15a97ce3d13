"""Rendering of a metrics report (:func:`kernelgym.scoring.metrics.tables`): Markdown tables, a fast_p plot, files.

The report dict is the one :func:`kernelgym.scoring.metrics.tables` returns, optionally with extra top-level keys
(``files``, ``unmatched``, ``device`` ...) that are shown as a header and kept in the JSON file.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

from kernelgym.scoring.metrics import fast_key

_HEADER_KEYS = ("source", "task_set", "device", "backend", "profile", "torch_policy", "files", "unmatched_files",
                "samples_per_task", "missing_samples")


def _pct(x) -> str:
    return "–" if x is None else f"{100 * x:.1f}%"


def _num(x) -> str:
    return "–" if x is None else f"{x:.3g}"


def _table(rows: dict[str, dict], ps, ks) -> list[str]:
    heads = (["group", "n", "tasks", "compiled", "correct"] + [fast_key(p) for p in ps] + ["geomean speedup"]
             + [f"pass@{k}" for k in ks])
    lines = ["| " + " | ".join(heads) + " |", "|" + "---|" * len(heads)]
    for name, s in rows.items():
        cells = [name, str(s["n"]), str(s["tasks"]), _pct(s["compiled_rate"]), _pct(s["correct_rate"])]
        cells += [_pct(s["fast_p"][fast_key(p)]) for p in ps]
        cells.append(_num(s["geomean_speedup"]) + (f" (n={s['measured']})" if s["measured"] else ""))
        cells += [_pct(s["pass_at_k"].get(f"pass@{k}")) for k in ks]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def timing_note(report: dict) -> str:
    """One sentence on whether the speedups in the report mean anything."""
    meaningful = report.get("timing_meaningful")
    if meaningful == "all":
        return "Speedups were measured on a GPU against eager PyTorch."
    if meaningful == "some":
        return ("Some correct results were not meaningfully timed (CPU interpreter); they count as correct but "
                "never fast for p > 0, and are left out of the geometric mean.")
    return ("No speedup was meaningfully measured (CPU interpreter or no correct result): fast_0 is correctness, "
            "fast_p for p > 0 is 0 by convention, and there is no geometric-mean speedup.")


def render_markdown(report: dict) -> str:
    """The report as Markdown: a header, the timing note, and overall / per-level / per-category tables."""
    ps, ks = report["ps"], report["ks"]
    lines = ["# kernelgym evaluation report", ""]
    for key in _HEADER_KEYS:
        if key in report:
            lines.append(f"- {key.replace('_', ' ')}: {report[key]}")
    lines += ["", timing_note(report), "",
              "fast_p: share of samples that are correct with measured speedup > p over eager PyTorch "
              "(fast_0 = correct); pass@k: unbiased estimator over tasks with at least k samples.", ""]
    lines += ["## Overall", ""] + _table({"all": report["overall"]}, ps, ks) + [""]
    lines += ["## Per level", ""] + _table(report["by_level"], ps, ks) + [""]
    lines += ["## Per category", ""] + _table(report["by_category"], ps, ks) + [""]
    if report.get("missing_tasks"):
        lines += ["## Tasks without a file (counted as failed)", "", ", ".join(f"`{t}`" for t in report["missing_tasks"]),
                  ""]
    if report.get("judge_faults"):
        lines += ["## Files the judge failed on (counted as failed; `--resume` evaluates them again)", ""]
        lines += [f"- `{f}`" for f in report["judge_faults"]] + [""]
    if report.get("unmatched"):
        lines += ["## Files not evaluated", ""] + [f"- `{u['file']}`: {u['reason']}" for u in report["unmatched"]]
        lines.append("")
    return "\n".join(lines)


def plot_fast_p(report: dict, path: str | Path) -> Path:
    """A PNG of fast_p against p: one line for all results and one per level."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ps = report["ps"]
    fig, ax = plt.subplots(figsize=(6.4, 4.2), dpi=120)
    curves = {"all": report["overall"], **{f"level {k}": v for k, v in report["by_level"].items()}}
    for label, summary in curves.items():
        ax.plot(ps, [summary["fast_p"][fast_key(p)] for p in ps], marker="o",
                linewidth=2.2 if label == "all" else 1.2, label=f"{label} (n={summary['n']})")
    ax.set_xlabel("speedup threshold p over eager PyTorch")
    ax.set_ylabel("fast_p (share of samples)")
    ax.set_ylim(-0.02, 1.02)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    if report.get("timing_meaningful") != "all":
        ax.set_title("fast_p (speedups not measured for some or all results)", fontsize=9)
    else:
        ax.set_title("fast_p")
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path)
    plt.close(fig)
    return path


def write_report(report: dict, out_dir: str | Path) -> dict[str, Path]:
    """Write ``report.json``, ``report.md`` and ``fast_p.png`` into ``out_dir``; their paths by kind.

    The plot needs matplotlib (the ``plot`` extra); without it the plot is left out with a warning.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = {"json": out / "report.json", "markdown": out / "report.md"}
    paths["json"].write_text(json.dumps(report, indent=1, sort_keys=True))
    paths["markdown"].write_text(render_markdown(report))
    try:
        paths["plot"] = plot_fast_p(report, out / "fast_p.png")
    except ImportError:
        warnings.warn("matplotlib is not installed (pip install 'kernelgym[plot]'): no fast_p.png", stacklevel=2)
    return paths
