"""A profile file to kernels, whatever its format: the reader is picked by
content (:func:`roofline.importers.base.detect`, over the readers the
package registered on import; a profiler's output folder by
:mod:`.ranks.rank_rule`). Every result is checked as it is made
(:class:`roofline.core.import_result.ImportResult`)."""
from __future__ import annotations

from pathlib import Path

from ..core.errors import InputError, RooflineError
from ..core.import_result import ImportResult
from .base import detect, named
from .options import DEFAULT, ReadOptions

# an exception message quoted in a one-line error is cut here (it may quote
# a whole cell or name of the file)
_MESSAGE_CHARS = 200


def read_profile(path: str | Path, options: ReadOptions = DEFAULT) -> ImportResult:
    """Read any supported profile into kernels (each with a family, from its
    name when the file gives none); raises InputError on bad input: what
    is no regular file, text that cannot be read, and times, counts or
    counters that are no measurement. An exception a reader did not turn
    into an InputError itself (an OverflowError, RecursionError, MemoryError
    ...) becomes one, naming the file (:func:`reader_failure`).
    ``options.format`` names the reader instead of sniffing the content."""
    path = Path(path)
    try:
        reader = named(options.format) if options.format else detect(path)
        result = reader.read(path, options)
    except RooflineError:
        raise
    except Exception as exc:   # noqa: BLE001 - any reader's failure is one line naming the file
        raise reader_failure(path, exc) from exc
    return result


def reader_failure(path, exc: BaseException) -> InputError:
    """An exception raised inside a reader as one line naming the file: the
    reader named no field (it would have raised an InputError saying which),
    so the line says what kind of failure it was."""
    name = type(exc).__name__
    if isinstance(exc, OSError) and exc.strerror:
        return InputError(path, None, f"cannot read: {exc.strerror}")
    what = ("nested too deeply to read" if isinstance(exc, RecursionError) else
            "too big to read in this process's memory" if isinstance(exc, MemoryError) else
            "cannot be read")
    text = " ".join(str(exc).split())
    if len(text) > _MESSAGE_CHARS:
        text = text[: _MESSAGE_CHARS - 1] + "…"
    return InputError(path, None, f"{what} ({name}{': ' + text if text else ''}); the reader names no "
                      "field: a damaged file, or a form of it the reader does not expect")


def is_profiler_folder(path) -> bool:
    """A folder one profiler wrote for one run (a rocprof-compute workload, a
    Neutrino run), read as one profile: not a folder of rank traces (the
    rule: :mod:`.rank_rule`)."""
    from .ranks.rank_rule import is_profile_folder
    return is_profile_folder(path)
