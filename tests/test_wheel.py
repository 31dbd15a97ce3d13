"""The built wheel carries the bundled suite: a plain (non-editable) install loads every task and finds the solutions.

Builds the wheel without network (``--no-build-isolation``, setuptools from this environment), installs it with
``--no-deps`` into a fresh venv that sees this environment's packages (torch, gymnasium, ...) and runs from a
temporary folder, so nothing can come from the source tree.
"""

from __future__ import annotations

import json
import os
import shutil
import site
import subprocess
import sys
import textwrap
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SUITE = ROOT / "kernelgym" / "suite"
DATA_SUFFIXES = (".py", ".json", ".md")

CHECK = textwrap.dedent('''
    import json, sys
    import kernelgym
    from kernelgym.data.policies import ReplayPolicy
    from kernelgym.tasks import BUNDLED_TASKS, solution_path

    tasks = kernelgym.load_tasks()
    triton, cuda = ReplayPolicy(), ReplayPolicy(backend="cuda")
    with_solution = [t for t in tasks if triton.has(t.id)]
    first = with_solution[0]
    print(json.dumps({
        "file": kernelgym.__file__,
        "suite": str(BUNDLED_TASKS),
        "ids": list(tasks.ids),
        "task_sets": sorted({t.task_set for t in tasks}),
        "triton": triton.task_ids(),
        "cuda": cuda.task_ids(),
        "solution_id": first.id,
        "solution_path": str(solution_path(first)),
        "solution_exists": solution_path(first).is_file(),
        "replay_path": str(triton.path(first.id)),
        "replay_text": "ModelNew" in triton(dict(task_id=first.id)),
    }))
''')


def _copy_build_inputs(dest: Path) -> Path:
    """What setuptools reads, without the checkout's ``build/`` (stale files would end up in the wheel) or caches."""
    dest.mkdir(parents=True)
    for name in ("pyproject.toml", "README.md", "MANIFEST.in", "setup.py", "setup.cfg"):
        if (ROOT / name).is_file():
            shutil.copy2(ROOT / name, dest / name)
    for licence in ROOT.glob("LICEN[CS]E*"):
        shutil.copy2(licence, dest / licence.name)
    shutil.copytree(ROOT / "kernelgym", dest / "kernelgym",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info"))
    return dest


def _solution_ids(backend: str) -> list[str]:
    return sorted(f"{p.parent.name}/{p.stem}" for p in (SUITE / "solutions" / backend).glob("*/*.py"))


@pytest.mark.timeout(600)
def test_wheel_ships_the_bundled_suite(tmp_path):
    pytest.importorskip("setuptools")
    from kernelgym.tasks import load_tasks

    source_ids = list(load_tasks(SUITE).ids)
    assert source_ids, "no bundled tasks in the source tree"

    src = _copy_build_inputs(tmp_path / "src")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-q",
                    "-w", str(tmp_path / "dist"), str(src)], check=True, timeout=300, cwd=tmp_path)
    (wheel,) = (tmp_path / "dist").glob("kernelgym-*.whl")

    # every data file of the suite, solutions included, is in the wheel
    expected = {p.relative_to(ROOT).as_posix() for p in SUITE.rglob("*")
                if p.is_file() and p.suffix in DATA_SUFFIXES and "__pycache__" not in p.parts}
    shipped = set(zipfile.ZipFile(wheel).namelist())
    assert expected - shipped == set()

    # a venv with this environment's packages but not the source tree; pip runs from the system site-packages
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(system_site_packages=True, with_pip=False, symlinks=sys.platform != "win32").create(env_dir)
    python = env_dir / ("Scripts/python.exe" if sys.platform == "win32" else "bin/python")
    # when this test itself runs in a venv (CI's), its packages (torch...) are not the system's: the new venv sees
    # them through a .pth of plain paths, after its own site-packages (so the wheel's kernelgym comes first) and
    # without running the .pth files there (so an editable install of the source tree stays out)
    site_dir = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                              capture_output=True, text=True, check=True).stdout.strip()
    Path(site_dir, "_parent_env.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-index", "--ignore-installed",
                    "--no-compile", str(wheel)], check=True, timeout=300, cwd=tmp_path)

    run_dir = tmp_path / "elsewhere"
    run_dir.mkdir()
    proc = subprocess.run([str(python), "-c", CHECK], capture_output=True, text=True, timeout=300, cwd=run_dir,
                          env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])

    venv_root = env_dir.resolve()
    assert Path(got["file"]).resolve().is_relative_to(venv_root), got["file"]
    assert Path(got["suite"]).resolve().is_relative_to(venv_root), got["suite"]
    assert len(got["ids"]) == len(source_ids) and got["ids"] == source_ids
    assert got["task_sets"] == ["kernelgym"]
    assert got["triton"] == _solution_ids("triton") and got["triton"]
    assert got["cuda"] == _solution_ids("cuda") and got["cuda"]
    assert got["solution_exists"] and got["replay_text"]
    assert Path(got["solution_path"]).resolve().is_relative_to(venv_root)
    assert Path(got["replay_path"]).resolve() == Path(got["solution_path"]).resolve()
