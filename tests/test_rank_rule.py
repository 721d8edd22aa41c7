"""A folder is a rank folder or one profile by a rule the user can read
(issue 30): a profile only by its marker files at the folder's top, a rank
folder never drops a rank or an entry without a word, and whatever a reader
raises on a rank, on worker processes too, is one line naming the file.
Every folder here is generated."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
from rank_traces import write_ranks  # noqa: E402
from test_ranks_robust import one_line_error  # noqa: E402

from roofline.core.errors import InputError  # noqa: E402
from roofline.importers import base  # noqa: E402
from roofline.importers.ranks.rank_files import read_ranks  # noqa: E402
from roofline.importers.ranks.rank_rule import FILES, NEUTRINO, RANKS, ROCPROF_COMPUTE, folder_kind  # noqa: E402
from roofline.importers.read import read_profile  # noqa: E402

DEVICE = "a100-80gb-sxm"


def cli(*args, prelude: str = ""):
    """The CLI in a child process; ``prelude``: Python run before it (to
    inject a failing reader, which forked workers inherit)."""
    code = f"import sys\n{prelude}\nfrom roofline.cli.main import main\nsys.exit(main(sys.argv[1:]))"
    return subprocess.run([sys.executable, "-c", code, *map(str, args)], capture_output=True, text=True,
                          timeout=180)


@pytest.fixture
def ranks(tmp_path):
    folder = tmp_path / "job"
    write_ranks(folder, ranks=2, kernels=3)
    return folder


def _workload(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / "pmc_perf.csv").write_text("Dispatch_ID,Kernel_Name\n0,k\n")
    return folder


def _neutrino(folder: Path) -> Path:
    (folder / "result").mkdir(parents=True)
    (folder / "probe.toml").write_text("[map.block_sched]\nlevel = 'warp'\n")
    return folder


# --- the rule -------------------------------------------------------------------

def test_the_markers_at_the_top_make_one_profile(tmp_path):
    assert folder_kind(_workload(tmp_path / "MI300X_A1")) == ROCPROF_COMPUTE
    assert folder_kind(_neutrino(tmp_path / "run")) == NEUTRINO
    name = tmp_path / "workloads" / "vcopy"           # workloads/NAME/<GPU>/pmc_perf.csv, no trace beside
    _workload(name / "MI300X_A1")
    assert folder_kind(name) == ROCPROF_COMPUTE
    only_run_below = tmp_path / "runs"
    _neutrino(only_run_below / "run1")
    # a Neutrino run is one only at the folder's own top; with no trace either, a folder of profiles
    assert folder_kind(only_run_below) == FILES


def test_traces_beside_a_workload_subfolder_are_ranks_and_the_subfolder_is_named(ranks):
    _workload(ranks / "MI300X_A1")
    assert folder_kind(ranks) == RANKS
    proc = cli("classify", ranks, "--device", DEVICE, "--format", "json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["ranks"] == [0, 1]            # no rank dropped
    warning = [line for line in proc.stderr.splitlines() if "not read" in line]
    assert len(warning) == 1, proc.stderr
    assert "MI300X_A1/ (a rocprof-compute workload)" in warning[0]
    assert str(ranks / "MI300X_A1") in warning[0]                # how to read it instead


def test_traces_beside_a_neutrino_subfolder_are_ranks_and_the_subfolder_is_named(ranks):
    _neutrino(ranks / "Jan_23_06_27_37_4242")
    proc = cli("classify", ranks, "--device", DEVICE, "--format", "json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["ranks"] == [0, 1]
    assert "Jan_23_06_27_37_4242/ (a Neutrino run)" in proc.stderr


@pytest.mark.parametrize("make, marker", [
    (lambda f: (f / "pmc_perf.csv").write_text("Dispatch_ID\n"), "pmc_perf.csv"),
    (_neutrino, "probe.toml"),
])
def test_traces_and_a_profile_at_the_same_top_are_refused_with_how_to_pick(ranks, make, marker):
    make(ranks)
    line = one_line_error(cli("classify", ranks, "--device", DEVICE), "2 trace files", "job_rank0.json",
                          f"give {ranks / marker}", "folder of their own")
    assert "at its top" in line
    with pytest.raises(InputError, match="holds both"):      # the library says the same
        read_profile(ranks)
    proc = cli("report", ranks, "--device", DEVICE, "-o", ranks.parent / "r.html")
    one_line_error(proc, "holds both")
    assert not (ranks.parent / "r.html").exists()


def test_other_entries_of_a_rank_folder_are_named_not_dropped_silently(ranks):
    (ranks / "README.txt").write_text("notes")
    (ranks / "job_rank2.pb").write_bytes(b"\x00")
    (ranks / "old").mkdir()
    parts, notes = read_ranks([ranks])
    assert [p.rank for p in parts] == [0, 1]
    text = [str(n) for n in notes if "not read" in str(n)]
    assert len(text) == 1
    for name in ("README.txt", "job_rank2.pb", "old/"):
        assert name in text[0]
    assert "3 entries" in text[0]


def test_a_folder_of_traces_only_has_no_warning(ranks):
    _, notes = read_ranks([ranks])
    assert not [n for n in notes if "not read" in str(n)]


def test_no_trace_but_a_profile_below_says_what_is_there(tmp_path):
    folder = tmp_path / "job"
    _neutrino(folder / "run1")
    (folder / "notes.txt").write_text("x")
    one_line_error(cli("classify", folder, "--device", DEVICE), "no trace files", "run1/ (a Neutrino run)")


def test_a_profile_folder_among_rank_folders_is_refused_by_name(ranks, tmp_path):
    workload = _workload(tmp_path / "MI300X_A1")
    one_line_error(cli("classify", ranks, workload, "--device", DEVICE), str(workload),
                   "a rocprof-compute workload, not a folder of rank traces")


def test_the_rule_is_in_the_help():
    proc = cli("classify", "--help")
    assert proc.returncode == 0
    text = " ".join(proc.stdout.split())
    for phrase in ("pmc_perf.csv (a rocprof-compute workload)", "probe.toml with result/",
                   "names every other entry it did not read", "is refused"):
        assert phrase in text, phrase


# --- a reader's failure on a rank, on worker processes too ------------------------

FAULTS = {   # kind -> a statement raising it for real inside the reader
    "OverflowError": "int(float('inf'))",
    "ValueError": "int('12x')",
    "RecursionError": "(lambda f: f(f))(lambda f: f(f))",
    "MemoryError": "bytearray(1 << 62)",
    "KeyError": "{}['grid']",
}

# a reader taking files that start with {"fault": ...}, failing as they say,
# with the process id in the message to show where it ran
FAULTY_READER = '''
import os, json
from roofline.importers import base
def _sniff(path, head):
    return head.lstrip().startswith(b'{"fault"')
def _read(path, options=None):
    kind = json.loads(open(path).read())["fault"]
    try:
        exec(%r[kind])
    except Exception as exc:
        raise type(exc)(f"{exc} [pid {os.getpid()}]") if kind != "MemoryError" else MemoryError(f"pid {os.getpid()}")
base._READERS.insert(0, base.Reader("faulty", _sniff, _read))
''' % (FAULTS,)


@pytest.fixture
def faulty_reader():
    namespace: dict = {}
    exec(FAULTY_READER, namespace)
    yield
    base._READERS[:] = [r for r in base._READERS if r.name != "faulty"]


@pytest.mark.parametrize("kind", sorted(FAULTS))
def test_any_reader_exception_on_a_worker_is_an_input_error_naming_the_file(tmp_path, faulty_reader, kind):
    write_ranks(tmp_path, ranks=6, kernels=3)
    bad = tmp_path / "job_rank4.json"
    bad.write_text(json.dumps({"fault": kind}))
    with pytest.raises(InputError) as err:
        read_ranks([tmp_path], workers=2)
    assert err.value.path == str(bad)
    assert kind in err.value.detail and "names no field" in err.value.detail
    pid = int(re.search(r"pid (\d+)", str(err.value)).group(1))
    assert pid != os.getpid()                   # raised in a worker, sent back as data


@pytest.mark.parametrize("kind", ["OverflowError", "RecursionError", "MemoryError"])
def test_the_cli_with_workers_says_one_line_naming_the_file(tmp_path, kind):
    write_ranks(tmp_path, ranks=4, kernels=3)
    (tmp_path / "job_rank2.json").write_text(json.dumps({"fault": kind}))
    proc = cli("classify", tmp_path, "--device", DEVICE, "--workers", "2", prelude=FAULTY_READER)
    one_line_error(proc, "job_rank2.json", kind)


def test_the_same_file_alone_says_the_same_line(tmp_path):
    bad = tmp_path / "one.json"
    bad.write_text(json.dumps({"fault": "OverflowError"}))
    line = one_line_error(cli("classify", bad, "--device", DEVICE, prelude=FAULTY_READER), str(bad))
    assert "OverflowError" in line and "cannot convert float infinity" in line


def test_a_failure_after_reading_a_rank_names_the_file_too(tmp_path, monkeypatch):
    # the reduction a worker does after the reader (summarise) is covered as well
    import roofline.importers.ranks.rank_files as rf
    write_ranks(tmp_path, ranks=2, kernels=3)

    def broken(ks):
        raise OverflowError("Python int too large to convert to C long")
    monkeypatch.setattr(rf, "summarise", broken)
    with pytest.raises(InputError) as err:
        read_ranks([tmp_path], workers=2)
    # both ranks fail: whichever worker answers first is named
    assert Path(err.value.path).name in ("job_rank0.json", "job_rank1.json")
    assert "OverflowError" in err.value.detail


# --- a folder of profiles: one trace or none is no rank job --------------------------

EXAMPLES = ROOT / "examples"


def test_examples_is_read_file_by_file_with_each_files_warnings():
    assert folder_kind(EXAMPLES) == FILES
    proc = cli("classify", EXAMPLES, "--device", "v100-sxm2", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    names = {k["name"] for k in json.loads(proc.stdout)}              # kernel rows, no rank table
    assert any(n.startswith("mxnet::op::forward_kernel") for n in names)         # ece408_kernels.csv
    for name in ("numpy_kernels.py", "pytorch_cpu.py"):                            # refused by name, with why
        assert f"not read: {EXAMPLES / name} (unrecognised profile format" in proc.stderr
    # the CPU trace's host times: refused by name for the GPU's roofs, with the reason it gets alone
    assert not any(n.startswith("aten::") for n in names)
    cpu = cli("classify", EXAMPLES / "pytorch_cpu_trace.json.gz", "--device", "v100-sxm2")
    why = cpu.stderr.split(f"{EXAMPLES / 'pytorch_cpu_trace.json.gz'}: ", 1)[1].strip()
    assert cpu.returncode != 0 and "host times" in why
    assert f"not read: {EXAMPLES / 'pytorch_cpu_trace.json.gz'} ({why})" in " ".join(proc.stderr.split())
    # the nvprof file's own warning, as when it is given alone
    alone = cli("classify", EXAMPLES / "ece408_nvprof_m1.txt", "--device", "v100-sxm2", "--format", "json")
    mine = [ln for ln in alone.stderr.splitlines() if "ece408_nvprof_m1.txt:" in ln]
    assert mine and all(ln in proc.stderr for ln in mine)


def test_one_trace_in_a_folder_is_that_file_not_one_rank(ranks, tmp_path):
    single = tmp_path / "single"
    single.mkdir()
    (ranks / "job_rank0.json").rename(single / "job_rank0.json")
    (single / "notes").mkdir()
    assert folder_kind(single) == FILES
    proc = cli("classify", single, "--device", DEVICE)
    assert proc.returncode == 0, proc.stderr
    assert "1 ranks" not in proc.stdout and "slowest" not in proc.stdout
    assert "notes/" in proc.stderr and "not read" in proc.stderr
    assert cli("classify", single / "job_rank0.json", "--device", DEVICE).stdout == proc.stdout


def test_a_folder_of_no_profile_names_each_file(tmp_path):
    folder = tmp_path / "stuff"
    folder.mkdir()
    (folder / "a.txt").write_text("hello")
    one_line_error(cli("classify", folder, "--device", DEVICE), "no trace files", "a.txt (")


# --- graph captures beside their replays (vLLM, SGLang: tests/fixtures/serving) ------------

SERVING = ROOT / "tests" / "fixtures" / "serving"


def _linked(src: Path, dst: Path) -> None:
    dst.parent.mkdir(parents=True, exist_ok=True)
    os.symlink(src, dst)


def test_a_replay_and_its_capture_in_one_folder_are_read_as_the_two_files(tmp_path):
    replay, capture = SERVING / "vllm_decode_full_replay.json.gz", SERVING / "vllm_decode_full_capture.json.gz"
    _linked(replay, tmp_path / "pair" / replay.name)
    _linked(capture, tmp_path / "pair" / capture.name)
    assert folder_kind(tmp_path / "pair") == FILES          # one rank and its capture: no rank folder
    folder = cli("classify", tmp_path / "pair", "--device", "mi300x", "--format", "json")
    files = cli("classify", replay, capture, "--device", "mi300x", "--format", "json")
    assert folder.returncode == 0, folder.stderr
    assert json.loads(folder.stdout) == json.loads(files.stdout)
    assert "take the work of their captured launches" in folder.stderr


def test_the_capture_traces_subfolder_vllm_and_sglang_write_is_read_as_the_capture(tmp_path):
    replay, capture = SERVING / "sglang_qwen3_8b_decode_replay.json.gz", SERVING / "sglang_qwen3_8b_decode_capture_bs32.json.gz"
    _linked(replay, tmp_path / "prof" / replay.name)
    _linked(capture, tmp_path / "prof" / "capture_traces" / "bs_32_rank0.json.gz")
    (tmp_path / "prof" / "capture_traces" / "execution_details.json").write_text('[{"batch_size": 32}]')
    folder = cli("classify", tmp_path / "prof", "--device", "mi300x", "--format", "json")
    files = cli("classify", replay, capture, "--device", "mi300x", "--format", "json")
    assert folder.returncode == 0, folder.stderr
    assert json.loads(folder.stdout) == json.loads(files.stdout)
    # the capture's metadata is named as not read, not tried as a trace
    assert "capture_traces/execution_details.json" in folder.stderr and "not read" in folder.stderr
    assert "unrecognised" not in folder.stderr


def test_a_capture_in_a_rank_folder_is_no_rank_and_is_named(ranks):
    (ranks / "graph_capture_rank_0.json").write_text("{}")
    parts, notes = read_ranks([ranks])
    assert [p.rank for p in parts] == [0, 1]
    (text,) = [str(n) for n in notes if "not read" in str(n)]
    assert "graph_capture_rank_0.json" in text and "is no rank" in text
