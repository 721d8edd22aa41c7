"""What every text reader shares (roofline.importers.base): gzip-compressed
files, a UTF-8 byte-order mark and UTF-16 text are read the same as plain
UTF-8; and a file with headers but no rows is an InputError saying "no
kernels" and naming the file, whatever its format."""
from __future__ import annotations

import gzip
import sqlite3
from pathlib import Path

import pytest

from conftest import DATA
from roofline.core.errors import InputError
from roofline.importers import read_profile
from roofline.core.text_files import read_text
from roofline.importers.ert import read_ert_device

BOM = b"\xef\xbb\xbf"


def _same(a, b) -> None:
    assert a.format == b.format and a.device.name == b.device.name
    assert [(k.name, k.count, repr(k.time_s), dict(k.flops), dict(k.bytes)) for k in a.kernels] == \
           [(k.name, k.count, repr(k.time_s), dict(k.flops), dict(k.bytes)) for k in b.kernels]


# --------------------------------------------------------------------------
# encodings and compression, in one place for every reader
# --------------------------------------------------------------------------

# ncu_chart.csv and the nsys CSV start with their header: a BOM lands in it
@pytest.mark.parametrize("fixture", ["ncu_details.csv", "ncu_chart.csv", "ncu_raw.csv", "nvprof_summary.csv",
                                     "nvprof_trace.txt", "nsys_gpukernsum_2021.csv"])
@pytest.mark.parametrize("encode", ["bom", "utf16le", "utf16be", "gzip", "gzip+bom"])
def test_bom_utf16_and_gzip_read_like_plain_utf8(tmp_path, fixture, encode):
    plain = (DATA / fixture).read_bytes()
    text = plain.decode("utf-8")
    data = {"bom": BOM + plain,
            "utf16le": text.encode("utf-16"),          # with its BOM (little-endian here)
            "utf16be": b"\xfe\xff" + text.encode("utf-16-be"),
            "gzip": gzip.compress(plain),
            "gzip+bom": gzip.compress(BOM + plain)}[encode]
    path = tmp_path / (fixture + (".gz" if "gzip" in encode else ""))
    path.write_bytes(data)
    _same(read_profile(path), read_profile(DATA / fixture))


def test_kernels_csv_with_a_bom_is_recognised(tmp_path):
    # the sniff saw "\ufeffname" and rejected the file as unrecognised
    path = tmp_path / "k.csv"
    path.write_bytes(BOM + b"name,time_ms,flops_fp32\nk,1,2\n")
    r = read_profile(path)
    assert r.format == "kernels-csv" and r.kernels[0].flops == {"fp32": 2.0}


def test_ert_sum_file_goes_through_the_same_text_reading(tmp_path):
    path = tmp_path / "sum"
    path.write_bytes(gzip.compress(BOM + (DATA / "ert_sum_cpu").read_bytes()))
    assert read_ert_device(path).compute == read_ert_device(DATA / "ert_sum_cpu").compute


def test_broken_gzip_and_utf16_are_input_errors(tmp_path):
    truncated = tmp_path / "ncu.csv.gz"
    truncated.write_bytes(gzip.compress((DATA / "ncu_details.csv").read_bytes())[:-40])
    with pytest.raises(InputError, match="corrupt gzip stream") as err:
        read_profile(truncated)
    assert err.value.path == str(truncated)
    bad16 = tmp_path / "bad16.csv"
    bad16.write_bytes(b"\xff\xfe" + "name,time_ms\nk,1\n".encode("utf-16-le") + b"\x00\xd8")  # lone surrogate
    with pytest.raises(InputError, match="UTF-16"):
        read_text(bad16)


# --------------------------------------------------------------------------
# headers without rows
# --------------------------------------------------------------------------

def test_header_only_kernels_csv_has_no_kernels(tmp_path):
    path = tmp_path / "kernels.csv"
    path.write_text("# from my tool\nname,time_us,flops_fp32,bytes_dram\n")
    with pytest.raises(InputError, match="no kernels") as err:
        read_profile(path)
    assert err.value.path == str(path)


def test_header_only_nsys_stats_csv_has_no_kernels(tmp_path):
    path = tmp_path / "cuda_gpu_kern_sum.csv"
    path.write_text("Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),"
                    "StdDev (ns),Name\n")
    with pytest.raises(InputError, match="no kernels: the cuda_gpu_kern_sum") as err:
        read_profile(path)
    assert err.value.path == str(path)


def test_nsys_sqlite_with_empty_activity_tables_has_no_kernels(tmp_path):
    db = tmp_path / "empty.sqlite"
    conn = sqlite3.connect(db)
    conn.executescript((DATA / "nsys_tiny_2021.sql").read_text())
    for table in ("CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET"):
        if conn.execute("SELECT count(*) FROM sqlite_master WHERE name = ?", (table,)).fetchone()[0]:
            conn.execute(f'DELETE FROM "{table}"')
    conn.commit()
    conn.close()
    with pytest.raises(InputError, match="no kernels") as err:
        read_profile(db)
    assert err.value.path == str(db) and "CUPTI_ACTIVITY_KIND_KERNEL" in str(err.value)
