"""Every placed kernel as JSON, one object per line, built column by column.

A million kernels as Python dicts took 10 s before encoding began (the
``records()`` shape), 20 s with encoding, pretty-printing and decoding.
Here each field becomes a column of JSON fragments (``"time_s":1.5e-05``)
formatted by Arrow's C++ kernels, the fragments of a row are joined in C++,
and the rows' bytes are the output: no Python object per kernel.

The layout is an array with one kernel per line::

    [
    {"name":"sgemm","family":"gemm",...,"bytes":{"DRAM":1000000.0},...},
    ...
    ]

Values are those of :meth:`Placements.records`: ``null`` for a missing
value, ``bytes`` and ``intensity`` objects without the levels a kernel has
no figure for, floats always written as floats (``3.0``, not ``3``).
"""
from __future__ import annotations

from typing import Iterator

import numpy as np

from ..core.placement import Placements
from ..core.row_schema import FIELDS, row_columns
from ..core.units import whole_counts
from .row_text import Formatted, coded, joined, literal, made_ahead, plain_below, rows_text, whole_digits
from ..core.object_codes import distinct_objects, repeated_numbers

SLICE_ROWS = 50_000   # rows formatted per task (a slice's columns stay in cache); on every core


def placements_json_bytes(p: Placements) -> bytes:
    """Every kernel of ``p`` as UTF-8 JSON (the layout above)."""
    return b"".join(placements_json_chunks(p))


def placements_json_chunks(p: Placements) -> Iterator:
    """:func:`placements_json_bytes` in bytes-like pieces (views of Arrow's
    buffers), to be written as they come (half a gigabyte for a million
    kernels is never held twice)."""
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        yield _records_json(p)
        return
    n = len(p.kernels)
    pieces = _pieces(p) if n else []        # before the first byte: a failure writes nothing
    yield b"[\n"
    if n:
        def write(i: int):
            a, b = i * SLICE_ROWS, min(n, (i + 1) * SLICE_ROWS)
            # every row ends in ",\n" but the last
            return rows_text(pieces, a, b, "null", drop_last=2 if b == n else 0)
        yield from made_ahead(write, -(-n // SLICE_ROWS))
        yield b"\n"
    yield b"]\n"


def _records_json(p: Placements) -> bytes:
    """The same text from ``records()`` and msgspec (without pyarrow)."""
    import msgspec
    lines = b",\n".join(map(msgspec.json.encode, p.records()))
    return b"[\n" + lines + (b"\n" if lines else b"") + b"]\n"


def _pieces(p: Placements) -> list:
    """Each row's pieces (:mod:`.row_text`) in the field order of
    :mod:`roofline.core.row_schema`: keys and text fields coded, numbers
    formatted per slice."""
    pieces = []
    for i, (f, column) in enumerate(zip(FIELDS, row_columns(p).values())):
        pieces.append(literal(("{" if i == 0 else ",") + _key(f.name)))
        if f.kind in ("name", "text"):
            literals, indices = _strings(column, empty_is_null=f.kind == "text")
            pieces.append(coded(["null" if t is None else t for t in literals], indices))
        elif f.kind == "bool":
            pieces.append(coded(["false", "true"], np.asarray(column, dtype=bool).astype(np.int32)))
        elif f.kind == "count":
            pieces.append(_numbers(whole_counts(column), _counts))
        elif f.kind == "levels":
            pieces += _level_pieces(column)
        elif not np.isfinite(np.asarray(column, dtype=float)).any():
            pieces.append(literal("null"))      # no value in any row (a trace without collectives)
        elif f.kind == "nint":
            pieces.append(Formatted(_whole_numbers(np.asarray(column, dtype=float))))
        else:
            pieces += _float_pieces(np.asarray(column, dtype=float))
    return joined(pieces + [literal("},\n")])


def _numbers(values: np.ndarray, texts, repeated=None) -> object:
    """The piece of a number column: coded where its rows repeat a few
    values (each formatted once), else formatted per slice; ``texts``
    gives the formatter of a column, ``repeated`` the column's
    :func:`repeated_numbers` where the caller has it."""
    repeated = repeated if repeated is not None else repeated_numbers(values)
    if repeated is None:
        return Formatted(texts(values))
    distinct, codes = repeated
    return coded(["null" if t is None else t for t in texts(distinct)(0, len(distinct)).to_pylist()], codes)


def _counts(values: np.ndarray):
    import pyarrow as pa
    import pyarrow.compute as pac
    if values.dtype == object:      # counts past int64 (units.whole_counts): Python ints
        return lambda a, b: pa.array([str(v) for v in values[a:b]])
    return lambda a, b: pac.cast(pa.array(values[a:b]), pa.string())


def _whole_numbers(values: np.ndarray):
    """Whole numbers, null where NaN."""
    import pyarrow as pa
    import pyarrow.compute as pac
    return lambda a, b: pac.cast(pa.array(np.nan_to_num(values[a:b]).astype(np.int64),
                                          mask=~np.isfinite(values[a:b])), pa.string())


def _float_texts(values):
    return lambda a, b: _floats(np.asarray(values[a:b], dtype=float))


def _float_pieces(values: np.ndarray) -> list:
    """The pieces of a float column: coded where its rows repeat a few
    values; else Arrow's text of each, and ``.0`` as a piece of its own
    where every value or none needs it (bytes and FLOP counts are whole
    numbers: no per-row test)."""
    import pyarrow as pa
    import pyarrow.compute as pac
    repeated = repeated_numbers(values)
    if repeated is not None:
        return [_numbers(values, _float_texts, repeated)]
    digits = whole_digits(values)
    if digits is not None:          # every value bare digits: cast as integers
        return [Formatted(digits), literal(".0")]
    bare = _bare(values)
    if bare is None or (bare.any() and not bare.all()):
        return [Formatted(_float_texts(values))]
    texts = Formatted(lambda a, b: pac.cast(_finite(values[a:b]), pa.string()))
    return [texts, literal(".0")] if bare.all() else [texts]


def _finite(values: np.ndarray):
    import pyarrow as pa
    finite = np.isfinite(values)
    return pa.array(values, mask=None if finite.all() else ~finite)


def _bare(values: np.ndarray) -> np.ndarray | None:
    """Where Arrow writes a finite whole float as bare digits, which JSON
    needs ``.0`` after to stay a float (None: not known without the text)."""
    limit = plain_below()
    if limit is None:
        return None
    with np.errstate(invalid="ignore"):
        return np.isfinite(values) & (values == np.trunc(values)) & (np.abs(values) < limit)


def _level_pieces(levels: dict) -> list:
    """``{"L1":1.0,"DRAM":2.0}``: where every row has every level's figure,
    a key and a number per level; else one object per row made per slice
    (:func:`_level_object`)."""
    if not levels:
        return [literal("{}")]
    if all(np.isfinite(np.asarray(v, dtype=float)).all() for v in levels.values()):
        pieces = []
        for j, (lv, v) in enumerate(levels.items()):
            pieces += [literal(("{" if j == 0 else ",") + _key(lv))] + _float_pieces(np.asarray(v, dtype=float))
        return pieces + [literal("}")]
    return [Formatted(lambda a, b: _level_object({lv: v[a:b] for lv, v in levels.items()}))]


def _key(name: str) -> str:
    """``"name":`` with the name escaped (level names come from profiles)."""
    import msgspec
    return msgspec.json.encode(str(name)).decode() + ":"


def _strings(values: np.ndarray, empty_is_null: bool) -> tuple[list, np.ndarray]:
    """The JSON literal of each distinct value (escaped once: a trace has
    thousands of kernel names, not millions; None for null) and each row's
    index into them; a row's text is taken per slice, so names adding up to
    more than Arrow's 2 GiB string limit still go out. Values that are not
    strings are written as ``records()`` writes them (``str(v)``; None and
    "" as null where ``empty_is_null``)."""
    import msgspec
    import pyarrow as pa
    import pyarrow.compute as pac
    obj = np.asarray(values, dtype=object)
    shared = distinct_objects(obj)
    if shared is not None:              # rows share a few objects: each converted once
        obj, codes = shared
    try:
        arr = pa.array(obj, type=pa.large_string())
        if arr.null_count and not empty_is_null:
            raise TypeError("None in a column records() writes as text")
    except (TypeError, pa.ArrowTypeError, pa.ArrowInvalid):
        texts = [str(v) if (v or not empty_is_null) else None for v in obj.tolist()]
        arr = pa.array(texts, type=pa.large_string())
    encoded = arr.dictionary_encode()
    literal = [None if w is None or (w == "" and empty_is_null) else msgspec.json.encode(w).decode()
               for w in encoded.dictionary.to_pylist()]
    literal.append(None)                # where the column itself is null
    indices = pac.fill_null(encoded.indices, len(literal) - 1).to_numpy(zero_copy_only=False)
    if shared is not None:              # a text per distinct object, the rows keep their codes
        return [literal[i] for i in indices.tolist()], codes
    return literal, indices


def _floats(values: np.ndarray):
    """Shortest round-trip float texts (Arrow's formatter), ``.0`` added to
    integral ones so they stay floats; null where not finite."""
    import pyarrow as pa
    import pyarrow.compute as pac
    values = np.asarray(values, dtype=float)
    finite = np.isfinite(values)
    text = pac.cast(pa.array(values, mask=None if finite.all() else ~finite), pa.string())
    whole = finite & (values == np.trunc(values))
    if not whole.any():
        return text
    # only whole numbers can come out without a "." or an exponent; each
    # row's ".0" or "" is taken from two texts by a 0/1 code
    bare = _bare(values)
    if bare is None:
        bare = whole & ~np.asarray(pac.fill_null(pac.or_(pac.match_substring(text, "."), pac.match_substring(text, "e")),
                                                 True).to_numpy(zero_copy_only=False), dtype=bool)
    return pac.binary_join_element_wise(text, pac.take(pa.array(["", ".0"]), pa.array(bare.astype(np.int8))), "")


def _level_object(levels: dict):
    """``{"L1":1.0,"DRAM":2.0}`` per row, leaving out levels without a figure."""
    import pyarrow as pa
    import pyarrow.compute as pac
    if not levels:
        return pa.scalar("{}")
    # each member ends in a comma, or is empty where the level has no figure;
    # (binary_join_element_wise's null_handling="skip" dropped all-null rows
    # from its result in pyarrow 26)
    members = [pac.fill_null(pac.binary_join_element_wise(_key(lv), _floats(v), ",", ""), "")
               for lv, v in levels.items()]
    joined = pac.utf8_rtrim(pac.binary_join_element_wise(*members, ""), characters=",")
    return pac.binary_join_element_wise("{", joined, "}", "")


