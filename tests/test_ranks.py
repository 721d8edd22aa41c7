"""Many ranks of one job: per-family per-rank table, slowest rank, spread,
collectives; serial and parallel paths give the same answer."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
from rank_traces import KERNELS, write_ranks  # noqa: E402

from roofline.core.errors import InputError  # noqa: E402
from roofline.core.placement import place  # noqa: E402
from roofline.devices.profile import find_device  # noqa: E402
from roofline.importers.ranks.rank_files import rank_from_name, read_ranks  # noqa: E402
from roofline.analysis.ranks import RankSet, family_rank_table, rank_spread  # noqa: E402

PER_RANK = 30   # kernels per rank: 10 of each kind


def classify(folder, *extra):
    out = subprocess.run([sys.executable, "-m", "roofline.cli.main", "classify", str(folder), "--device",
                          "a100-80gb-sxm", "--format", "json", *extra], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout), out.stderr


@pytest.fixture(scope="module")
def job(tmp_path_factory):
    folder = tmp_path_factory.mktemp("job")
    write_ranks(folder, ranks=4, kernels=PER_RANK, slow=2)
    return folder


def test_ranks_are_read_summarised_and_ordered(job):
    parts, notes = read_ranks([job])
    assert [p.rank for p in parts] == [0, 1, 2, 3]
    assert all(len(p.summary) == len(KERNELS) for p in parts)     # one row per kernel name
    assert notes and "--workers" in str(notes[0])
    rs = RankSet.of([(p.rank, p.summary) for p in parts])
    p = place(rs.kernels, find_device("a100-80gb-sxm"))
    spread = rank_spread(p, rs.rank)
    per_rank = sum(us for *_, us in KERNELS) * (PER_RANK // len(KERNELS)) * 1e-6
    assert spread.time_s == pytest.approx([per_rank, per_rank, 1.3 * per_rank, per_rank])
    assert spread.slowest == 2 and spread.spread == pytest.approx(0.3)
    nccl = 200e-6 * (PER_RANK // len(KERNELS))
    assert spread.collectives_s == pytest.approx([nccl, nccl, 1.3 * nccl, nccl])
    rows = family_rank_table(p, rs.rank)
    gemm = [r for r in rows if r.family == "gemm"]
    assert [r.rank for r in gemm] == [0, 1, 2, 3] and all(r.calls == 10 for r in gemm)
    # the modelled mm: 2 M N K per call, placed on the fp32 roof: % of roof from the model
    assert gemm[2].fraction_of_roof == pytest.approx(gemm[0].fraction_of_roof / 1.3)


def test_cli_serial_table_and_json(job):
    data, err = classify(job)
    assert data["ranks"] == [0, 1, 2, 3] and data["slowest_rank"] == 2
    assert data["spread"] == pytest.approx(0.3)
    fams = {(f["family"], f["rank"]) for f in data["families"]}
    assert ("communication", 3) in fams and ("gemm", 0) in fams and ("elementwise", 1) in fams
    assert "read one after another" in err
    table = subprocess.run([sys.executable, "-m", "roofline.cli.main", "classify", str(job), "--device",
                            "a100-80gb-sxm"], capture_output=True, text=True)
    assert table.returncode == 0 and "slowest: rank 2" in table.stdout


def test_workers_give_the_serial_answer(job):
    """--workers N runs its own process pool: no Dask needed."""
    serial, _ = classify(job)
    parallel, err = classify(job, "--workers", "2")
    assert parallel == serial and "one after another" not in err


def test_two_files_of_one_rank_are_refused(tmp_path):
    write_ranks(tmp_path, ranks=2, kernels=3)
    (tmp_path / "copy_rank1.json").write_text((tmp_path / "job_rank1.json").read_text())
    with pytest.raises(InputError, match="rank 1 also comes from"):
        read_ranks([tmp_path])


def test_rank_from_file_name():
    assert rank_from_name(Path("trace_rank12.json.gz")) == 12
    assert rank_from_name(Path("worker-3.pt.trace.json")) == 3
    assert rank_from_name(Path("step.json")) is None


def test_report_has_a_rank_section(job, tmp_path):
    out = tmp_path / "job.md"
    proc = subprocess.run([sys.executable, "-m", "roofline.cli.main", "report", str(job), "--device",
                           "a100-80gb-sxm", "-o", str(out)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    text = out.read_text()
    assert "## Ranks" in text and "Slowest: rank 2" in text and "| communication | 3 |" in text


def test_rank_folders_choose_the_device_from_the_traces_properties(tmp_path, capsys):
    """An MI250 trace names only 'AMD Radeon Graphics': its device
    properties pick the profile, for a folder of ranks as for one file."""
    import shutil

    from conftest import REALDATA
    from roofline.cli.main import main
    src = REALDATA / "kineto_trace" / "facebookresearch__HolisticTraceAnalysis__mi250_minitoy_train_ROCm6_2_kineto.json.gz"
    if not src.exists():
        pytest.skip("realdata not present")
    for r in (0, 1):
        shutil.copy(src, tmp_path / f"rank{r}.json.gz")
    assert main(["classify", str(tmp_path), "--format", "csv"]) == 0
    assert "using device profile mi250-gcd" in capsys.readouterr().err


def test_a_rank_summary_keeps_calls_without_work_apart_from_calls_with_work():
    """The same kernel launched inside an operator (modelled work) and before
    the profiler's CPU window (no operator, no work): two rows, as in the
    trace's own rows, so the work is set against the time of its own calls."""
    import math

    import numpy as np

    from roofline.core.model import KernelSet
    from roofline.importers.ranks.rank_files import summarise
    ks = KernelSet(["gemm", "gemm", "gemm"], [1e-3, 1e-3, 2e-3], flops={"tensor_bf16": [1e12, 1e12, math.nan]},
                   operators=["aten::mm", "aten::mm", ""])
    out = summarise(ks)
    assert len(out) == 2
    assert out.time_s.tolist() == [2e-3, 2e-3] and out.operators.tolist() == ["aten::mm", ""]
    assert out.flops["tensor_bf16"][0] == 2e12 and np.isnan(out.flops["tensor_bf16"][1])
