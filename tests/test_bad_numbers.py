"""Numbers no profiler writes (beyond the float range, over 4,300 digits,
negative or centuries-long durations, counters that overflow to infinity)
are one-line InputErrors naming the file and, where it is known, the line:
never a traceback and never a kernel with an impossible value."""
from __future__ import annotations

from pathlib import Path

import pytest

from roofline.core.errors import InputError
from roofline.importers.nvidia import nvprof
from roofline.importers import read_profile
from roofline.core.import_result import MAX_TIME_S, ImportResult, ProgramTime
from roofline.core.model import Kernel

DATA = Path(__file__).parent / "data"
BIG = "9" * 5000                      # int("9" * 5000) raises ValueError in Python >= 3.11


def _replace(name: str, old: str, new: str, tmp_path: Path, count: int = 1) -> Path:
    text = (DATA / name).read_text()
    assert text.count(old) >= count, old
    out = tmp_path / name
    out.write_text(text.replace(old, new, count))
    return out


# ------------------------------------------------------------- the backstop

def test_a_result_refuses_impossible_kernel_values_and_keeps_real_ones():
    ok = ImportResult("f", "x", (Kernel("k", time_s=1e-3, flops={"fp32": 1e9}),
                                 Kernel("no time", bytes={"DRAM": 0.0})))
    assert len(ok.kernels) == 2
    for bad, words in [(Kernel("k", time_s=float("inf")), "beyond a year"),
                       (Kernel("k", time_s=2.0**64 * 1e-9), "beyond a year"),   # 584 years
                       (Kernel("k", time_s=-1e-6), "negative"),
                       (Kernel("k", flops={"fp32": float("inf")}), "fp32 FLOP = inf"),
                       (Kernel("k", bytes={"DRAM": -32.0}), "DRAM bytes = -32.0"),
                       (Kernel("k", instructions=float("nan")), "instructions = nan")]:
        with pytest.raises(InputError, match=words):
            ImportResult("f", "x", (bad,))
    assert len(ImportResult("f", "x", (Kernel("k", time_s=MAX_TIME_S),)).kernels) == 1
    with pytest.raises(InputError, match="host API 'cudaFree'"):
        ImportResult("f", "x", (), program=ProgramTime(api_s={"cudaFree": -175.0}))
    with pytest.raises(InputError, match="timeline span"):
        ImportResult("f", "x", (), program=ProgramTime(span_s=float("inf")))


# ------------------------------------------------------------- nvprof

def test_nvprof_counter_times_invocations_overflowing_to_infinity_is_refused(tmp_path):
    # 1e307 FLOP per invocation x 50 invocations = inf
    path = _replace("nvprof_metrics.txt", "83886080    83886080    83886080",
                    "83886080    83886080    1e307", tmp_path)
    with pytest.raises(InputError, match=r"jacobi_step.*fp32 FLOP = inf: a counter overflowed"):
        read_profile(path)


@pytest.mark.parametrize("name, old, new, line, words", [
    # Invocations of 5000 digits: was OverflowError (int(inf)) in the reader
    ("nvprof_metrics.txt", "         50                             flop_count_sp",
     f"         {BIG}                             flop_count_sp", 9, "beyond the range of a number"),
    # a summary time beyond the float range: was a kernel of infinite time
    ("nvprof_summary.txt", "5.0000ms        10", "1e400ms        10", 6, "beyond the range of a number"),
    # a Correlation_ID of 5000 digits: was ValueError (int() limit) in the reader
    ("nvprof_trace.csv", '"[CUDA memcpy HtoD]",101', f'"[CUDA memcpy HtoD]",{BIG}', 6,
     "too long for a whole number"),
    # a negative unified-memory transfer time: was a kernel of -5 us
    ("nvprof_summary.txt", "256.0000KB  30.00000us", "256.0000KB  -5us", 21, "expected a duration"),
])
def test_nvprof_numbers_out_of_range_are_refused_at_their_line(tmp_path, name, old, new, line, words):
    with pytest.raises(InputError, match=words) as err:
        read_profile(_replace(name, old, new, tmp_path))
    assert err.value.line == line
    assert len(str(err.value)) < 300            # the 5000-digit cell is not echoed whole


def test_nvprof_kernel_of_584_years_is_refused(tmp_path):
    # 2^64 - 1 ns: a wrapped-around duration
    path = _replace("nvprof_trace.csv", "121.000000,950.000000", "121.000000,18446744073709551615000",
                    tmp_path)
    with pytest.raises(InputError, match=r"spmv_csr.*beyond a year"):
        read_profile(path)


# ------------------------------------------------------------- Nsight Systems SQLite

def _tiny_sqlite(tmp_path: Path) -> Path:
    import sqlite3
    db = tmp_path / "tiny.sqlite"
    with sqlite3.connect(db) as conn:
        conn.executescript((DATA / "nsys_tiny_2021.sql").read_text())
    return db


@pytest.mark.parametrize("update, words", [
    # end - start overflows SQLite's 64-bit integers into a 1.8e19 ns (584-year) real
    ('"start" = -9223372036854775808, "end" = 9223372036854775807', "beyond a year"),
    ('"end" = 1e400', "beyond a year"),                       # an infinite end time
])
def test_nsys_sqlite_kernel_of_584_years_or_infinite_is_refused(tmp_path, update, words):
    import sqlite3
    db = _tiny_sqlite(tmp_path)
    with sqlite3.connect(db) as conn:
        conn.execute(f"UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET {update} WHERE start = 100")
    with pytest.raises(InputError, match=words):
        read_profile(db)


# ------------------------------------------------------------- ERT

@pytest.mark.parametrize("gflops, words", [
    ("1e16", "beyond any device"),          # was ValueError: '1e+16e9' is no number
    ("1e-14", None),                        # was ValueError: '1e-14e9'; 1e-5 FLOP/s is a (slow) rate
    ("12345678901234567890123", "beyond any device"),   # an int past float's exact range
    ("1e400", "expected a positive rate"),  # inf
    (BIG, "not valid JSON"),                # json.loads raises ValueError past 4,300 digits
    ("0", "not a positive rate"),
])
def test_ert_rates_of_any_size_are_read_or_refused_in_one_line(tmp_path, gflops, words):
    from roofline.importers.ert import read_ert_device
    path = _replace("ert_roofline_py2.json", '["GFLOPs", 99.5]', f'["GFLOPs", {gflops}]', tmp_path)
    if words is None:
        assert read_ert_device(path).compute["fp32"].value == pytest.approx(float(gflops) * 1e9)
        return
    with pytest.raises(InputError, match=words) as err:
        read_ert_device(path)
    assert len(str(err.value)) < 300


def test_ert_rates_stay_decimal_exact():
    from roofline.devices.ert import _rate
    assert _rate(4258.4, "f", 1, "x") == 4.2584e12     # not 4258399999999.9995
    assert _rate(3, "f", 1, "x") == 3e9
    assert _rate(1e-5, "f", 1, "x") == 1e4


def test_ert_sum_rate_beyond_the_float_range_is_refused_at_its_line(tmp_path):
    from roofline.importers.ert import read_ert_device
    path = _replace("ert_sum_cpu", "  99.50 FP32 GFLOPs", f"  {BIG} FP32 GFLOPs", tmp_path)
    with pytest.raises(InputError, match="expected a positive rate") as err:
        read_ert_device(path)
    assert err.value.line == 1


# ------------------------------------------------------------- Nsight Compute units

@pytest.mark.parametrize("metric, unit, words", [
    # bytes in nsecond were read as 1.3422e-07 bytes; now refused
    ("dram__bytes.sum", "nsecond", "expected byte"),
    # a % on a counter was divided by 100
    ("dram__bytes.sum", "%", "expected byte"),
    ("gpu__time_duration.sum", "Mbyte", "expected nsecond"),
    ("gpu__time_duration.sum", "%", "expected nsecond"),
])
def test_ncu_units_that_do_not_fit_the_metric_are_refused(tmp_path, metric, unit, words):
    old = {"dram__bytes.sum": '"dram__bytes.sum","Mbyte","134.22"',
           "gpu__time_duration.sum": '"gpu__time_duration.sum","msecond","1.25"'}[metric]
    path = _replace("ncu_details.csv", old, old.replace(old.split(",")[1], f'"{unit}"'), tmp_path)
    with pytest.raises(InputError, match=f"metric {metric}: unit '{unit}' does not fit.*{words}") as err:
        read_profile(path)
    assert err.value.line == (6 if metric.startswith("dram") else 7)


def test_units_real_files_use_are_accepted():
    from roofline.importers.nvidia.metrics import _unit_class, expected_units
    accepted = [  # (metric, unit) pairs seen in ../shared/realdata reports and exports
        ("gpu__time_duration.sum", "ns"), ("gpu__time_duration.sum", "usecond"),
        ("sm__cycles_elapsed.avg.per_second", "hz"), ("sm__cycles_elapsed.avg.per_second", "cycle/nsecond"),
        ("sm__cycles_elapsed.avg", "cycle"), ("dram__bytes.sum", "Mbyte"),
        ("dram__bytes.sum.per_second", "Gbyte/second"), ("dram__bytes.sum.per_second", "byte/s"),
        ("derived__lts__lts2xbar_bytes.sum.per_second", "byte"),   # ncu's own label (RTX 4060 report)
        ("lts__t_sectors.sum", "sector"), ("lts__t_sectors.sum.per_second", "sector/s"),
        ("sm__sass_thread_inst_executed_op_dadd_pred_on.sum", "thread"),
        ("smsp__sass_thread_inst_executed_op_dfma_pred_on.sum.per_cycle_elapsed", "inst/cycle"),
        ("SM Frequency", "Ghz"), ("Duration", "us"), ("DRAM Bandwidth", "Gbyte/s"),
        ("dram_read_transactions", ""), ("flop_count_sp", ""),
    ]
    for metric, unit in accepted:
        assert _unit_class(unit) in expected_units(metric) | {"none"}, (metric, unit)
    assert expected_units("device__attribute_display_name") is None     # not a rule input


def test_nvprof_percent_on_a_counter_is_refused(tmp_path):
    path = _replace("nvprof_metrics.txt", "83886080    83886080    83886080", "83886080    83886080    12.5%",
                    tmp_path)
    with pytest.raises(InputError, match="metric flop_count_sp: unit '%' does not fit") as err:
        read_profile(path)
    assert err.value.line == 9


# ------------------------------------------------------------- nsys stats CSV

KERN_HEADER = "Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name"
KERN_ROW = "30.0,3000000,3,1000000.0,1000000.0,1000000,1000000,0.0,volta_sgemm_32x128_tn"


def test_nsys_stats_data_row_above_its_header_is_refused_at_its_line(tmp_path):
    # the row used to be dropped without a word (the kernel was simply missing)
    text = (DATA / "nsys_stats_stdout.txt").read_text()
    lines = text.split("\n")
    h = lines.index(KERN_HEADER)
    lines[h], lines[h + 1] = lines[h + 1], lines[h]
    path = tmp_path / "stats.txt"
    path.write_text("\n".join(lines))
    with pytest.raises(InputError, match="a data row outside any table") as err:
        read_profile(path)
    assert err.value.line == h + 1


def test_nsys_stats_row_after_a_blank_line_is_refused_and_other_reports_are_skipped(tmp_path):
    cut = tmp_path / "cut.csv"
    cut.write_text(f"{KERN_HEADER}\n{KERN_ROW}\n\n{KERN_ROW.replace('volta', 'turing')}\n")
    with pytest.raises(InputError, match="outside any table") as err:
        read_profile(cut)
    assert err.value.line == 4
    # a report this reader does not use keeps its rows to itself
    other = tmp_path / "other.csv"
    other.write_text(f"{KERN_HEADER}\n{KERN_ROW}\n\n"         # nsys stats --report um_total_sum
                     "Total HtoD Migration Size (MB),Total DtoH Migration Size (MB),"
                     "Total CPU Page Faults,Total GPU PageFaults\n0.066,0.000,2,4\n")
    assert [k.name for k in read_profile(other).kernels] == ["volta_sgemm_32x128_tn"]


# ------------------------------------------------------------- nvprof wrapped names

SUMMARY_HEAD = """\
==1== Profiling application: ./a
==1== Profiling result:
            Type  Time(%)      Time     Calls       Avg       Min       Max  Name
 GPU activities:   50.00%  5.0000ms        10  500.00us  400.00us  600.00us  void foo<
"""


def test_nvprof_name_wrapped_over_many_lines_is_assembled_whole(tmp_path):
    path = tmp_path / "wrapped.txt"
    path.write_text(SUMMARY_HEAD + "int,\n" * 20000 + "float>(int)\n")
    (k,) = read_profile(path).kernels
    assert k.name == "void foo< " + "int, " * 20000 + "float>(int)"
    assert k.count == 10


def test_nvprof_name_wrapped_past_a_megabyte_is_refused_where_it_passes(tmp_path):
    from roofline.importers.nvidia.nvprof_tables import MAX_NAME_CHARS
    path = tmp_path / "wrapped.txt"
    line = "int, float, double, char, long, short, unsigned,\n"
    path.write_text(SUMMARY_HEAD + line * 200000)        # a 9.8 MB "name": took 56 s to refuse
    with pytest.raises(InputError, match="the name wrapped from line 4 to here is longer than") as err:
        read_profile(path)
    assert err.value.line == 4 + MAX_NAME_CHARS // len(line) + 1
