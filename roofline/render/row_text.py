"""Rows of text joined from columns, for ``classify``'s CSV and JSON of a
million rows.

A row is a list of pieces, each the text of one field (with its
separator, its JSON key): a :class:`Coded` piece holds the few texts a
field takes and each row's code, a :class:`Formatted` one formats a slice
of a column (numbers). Adjacent coded pieces are joined into one before any
row is built: each distinct combination's text is made once (a row's name,
family and flags are one piece; ``bound``, ``level`` ... ``reason`` another),
so a row is a handful of pieces, joined by Arrow's C++ kernel slice by
slice. Text columns are coded by their distinct objects
(:mod:`roofline.core.object_codes`).
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from functools import lru_cache
from itertools import repeat
from typing import Callable, Iterator

import numpy as np

# the largest number of text combinations a run's codes are read as at once (int64)
LARGEST_NUMBER = 2 ** 62


@dataclass(eq=False)
class Coded:
    """The texts a field takes and each row's index into them; ``codes``
    None where every row has the one text."""
    texts: list
    codes: np.ndarray | None = None
    array: object = None            # the texts as an Arrow array, made by joined()


@dataclass
class Formatted:
    """A field whose rows' texts are made per slice: ``text(a, b)`` gives
    rows ``a:b`` as an Arrow string array, null where a row has no value;
    ``suffix`` follows every row's text (the row's end)."""
    text: Callable
    suffix: str = ""


def literal(text: str) -> Coded:
    return Coded([text])


def coded(texts: list, codes: np.ndarray) -> Coded:
    """A coded piece; one text for every row when only one is used."""
    if len(texts) == 1 or (len(codes) and len(texts) and _one_code(codes)):
        return Coded([texts[int(codes[0])] if len(codes) else texts[0]])
    return Coded(list(texts), np.asarray(codes, dtype=np.int32))


def _one_code(codes: np.ndarray) -> bool:
    return bool(codes[0] == codes[-1] and (codes == codes[0]).all())


def joined(pieces: list, separator: str = "", end: str = "") -> list:
    """``pieces`` with every run of adjacent coded pieces made one (with
    ``separator`` between them, as :func:`rows_text` puts it between
    pieces), ``end`` after the last, ready for :func:`rows_text` on any
    thread."""
    import pyarrow as pa
    out: list = []
    run: list = []
    for piece in pieces + [None]:
        if isinstance(piece, Coded):
            run += [literal(separator), piece] if run and separator else [piece]
            continue
        if run:
            out.append(_combined(run))
            run = []
        if piece is not None:
            out.append(piece)
    if end and out:
        last = out[-1]
        out[-1] = (Coded([t + end for t in last.texts], last.codes) if isinstance(last, Coded)
                   else Formatted(last.text, last.suffix + end))
    for piece in out:
        if isinstance(piece, Coded) and piece.codes is not None:
            piece.array = pa.array(piece.texts, type=pa.large_string())
    return out


def _combined(run: list) -> Coded:
    """One piece for a run of coded pieces: each row's codes read as one
    number (mixed radix) and the text of each number that occurs made once;
    a run whose numbers could pass 2**62 is taken in parts."""
    pieces = list(run)
    while True:
        end, size, varying = 0, 1, 0
        while end < len(pieces):
            p = pieces[end]
            if p.codes is not None:
                # two varying pieces always go together: each takes at most a
                # code per row, so two stay below 2**62 for up to 2**31 rows
                if varying >= 2 and size * len(p.texts) > LARGEST_NUMBER:
                    break
                size *= len(p.texts)
                varying += 1
            end += 1
        piece = _texts_of(pieces[:end])
        if end == len(pieces):
            return piece
        pieces = [piece] + pieces[end:]


def _texts_of(pieces: list) -> Coded:
    """The coded piece of adjacent ``pieces`` (their numbers fit in int64)."""
    import pyarrow as pa
    import pyarrow.compute as pac
    varying = [p for p in pieces if p.codes is not None]
    if len(varying) <= 1:               # no combination to find
        texts, codes = (varying[0].texts, varying[0].codes) if varying else ([""], None)
        for p in reversed(pieces[:pieces.index(varying[0])] if varying else pieces):
            texts = [p.texts[0] + t for t in texts]
        for p in pieces[pieces.index(varying[0]) + 1:] if varying else []:
            texts = [t + p.texts[0] for t in texts]
        return Coded(texts, codes)
    number = np.zeros(len(varying[0].codes), dtype=np.int64)
    for p in varying:
        number = number * len(p.texts) + p.codes
    encoded = pac.dictionary_encode(pa.array(number))
    occurring = encoded.dictionary.to_numpy(zero_copy_only=False)
    digits = {}
    for p in reversed(varying):                 # the last piece is the lowest digit
        digits[id(p)] = (occurring % len(p.texts)).tolist()
        occurring = occurring // len(p.texts)
    # each combination's text joined once from its pieces' texts (not a
    # growing string per piece: tens of thousands of combinations)
    columns = [repeat(p.texts[0]) if p.codes is None else map(p.texts.__getitem__, digits[id(p)])
               for p in pieces]
    texts = list(map("".join, zip(*columns)))
    return Coded(texts, encoded.indices.to_numpy(zero_copy_only=False).astype(np.int32, copy=False))


def rows_text(pieces: list, a: int, b: int, null: str, separator: str = "", drop_last: int = 0):
    """Rows ``a:b`` as UTF-8 bytes (a bytes-like object): each row's pieces joined by
    ``separator`` (in the same C++ pass: a comma between the CSV's fields
    is no piece of its own), ``null`` for a missing value. Every row's text
    ends in its own line end (the pieces hold it); ``drop_last`` bytes of
    the last row's are left out."""
    import pyarrow as pa
    import pyarrow.compute as pac
    parts, arrays = [], 0
    for piece in pieces:
        if isinstance(piece, Formatted):
            text = piece.text(a, b).cast(pa.large_string())
            if piece.suffix:
                text = pac.binary_join_element_wise(text, pa.scalar(piece.suffix, type=pa.large_string()),
                                                    pa.scalar("", type=pa.large_string()),
                                                    null_handling="replace", null_replacement=null)
            parts.append(text)
            arrays += 1
        elif piece.codes is None:
            parts.append(pa.scalar(piece.texts[0], type=pa.large_string()))
        else:
            parts.append(pac.take(piece.array, piece.codes[a:b]))
            arrays += 1
    if not arrays:                      # every row the same text
        text = separator.join(p.as_py() for p in parts).encode("utf-8") * (b - a)
        return text[:len(text) - drop_last]
    rows = pac.binary_join_element_wise(*parts, pa.scalar(separator, type=pa.large_string()),
                                        null_handling="replace", null_replacement=null)
    offsets = np.frombuffer(rows.buffers()[1], dtype=np.int64)[rows.offset:rows.offset + len(rows) + 1]
    start, end = int(offsets[0]), int(offsets[-1]) - drop_last
    # a view of Arrow's buffer (it lives as long as the view): a gigabyte
    # of rows is not copied again, nor its fresh pages faulted in twice
    return memoryview(rows.buffers()[2].slice(start, end - start))


@lru_cache(maxsize=1)
def plain_below() -> float | None:
    """The least power of ten Arrow writes with an exponent (1e+10 in
    pyarrow 26), found by formatting the powers once; None if below 1e15
    none is. Below it every whole float is written as its digits: under
    2**53 a whole float's shortest text is the integer itself, so the form
    goes by its magnitude alone."""
    import pyarrow as pa
    import pyarrow.compute as pac
    powers = [10.0 ** k for k in range(1, 16)]
    for power, text in zip(powers, pac.cast(pa.array(powers), pa.string()).to_pylist()):
        if "e" in text:
            return power
    return None


def whole_digits(values: np.ndarray) -> Callable | None:
    """Where every value of a float column is whole, finite and below
    :func:`plain_below` (byte and FLOP counts), Arrow's text of each is the
    integer's digits: ``text(a, b)`` casts rows ``a:b`` as int64 (a third of
    the time of formatting floats). None otherwise, and where a row is
    -0.0 (written "-0")."""
    limit = plain_below()
    values = np.asarray(values)
    if limit is None or values.dtype.kind != "f" or not len(values):
        return None
    with np.errstate(invalid="ignore"):
        fits = bool((np.abs(values) < limit).all() and (values == np.trunc(values)).all())
    if not fits or np.signbit(values[values == 0]).any():
        return None

    def text(a: int, b: int):
        import pyarrow as pa
        import pyarrow.compute as pac
        return pac.cast(pa.array(values[a:b].astype(np.int64)), pa.string())
    return text


def made_ahead(make: Callable, count: int) -> Iterator:
    """``make(0) ... make(count - 1)`` in order, made on every core (Arrow's
    kernels release the GIL) at most two per core ahead of the reader: the
    slices of a million rows are never all held at once, as they were
    when every slice was handed to the pool at the start."""
    if count <= 1:
        yield from (make(i) for i in range(count))
        return
    from concurrent.futures import ThreadPoolExecutor
    cores = os.cpu_count() or 1
    with ThreadPoolExecutor(cores) as pool:
        pending = [pool.submit(make, i) for i in range(min(count, 2 * cores))]
        for i in range(count):
            piece = pending.pop(0).result()
            if i + len(pending) + 1 < count:
                pending.append(pool.submit(make, i + len(pending) + 1))
            yield piece
