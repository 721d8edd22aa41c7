"""How a file is read: which reader, which engine, and the limits.

Every reader takes a :class:`ReadOptions` (``read(path, options)``), so a
user can state the format where sniffing guesses wrong (``--input-format``)
and a test can run a reader's other engine or small chunks by asking for
them, not by patching the reader's constants.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ..core.errors import RooflineError
from ..core.text_files import MAX_TEXT_BYTES

ENGINES = ("auto", "python")
KINETO_ENGINES = ("auto", "msgspec", "scan")


@dataclass(frozen=True)
class ReadOptions:
    """``format``: a reader's name (``roofline import --help`` lists them),
    None to recognise the format from the content.

    ``csv_engine``: how kernels.csv is parsed. "auto" takes Arrow's C++
    reader (a million rows in a second) and falls back to the careful
    reader on any cell Arrow cannot type, so that an error names its line;
    "python" is the careful reader alone (``csv.reader`` and numpy).

    ``stream``: whether a Kineto trace is decoded in chunks (bounded
    memory) or whole; None decides by size (``kineto.STREAM_ABOVE_BYTES``, and
    every gzip file streams: :mod:`.kineto`). ``chunk_bytes``: the chunk size where a
    reader reads in chunks (None: the reader's own).

    ``kineto_engine``: how a Kineto trace's events are decoded. "scan"
    reads kernels, operators and runtime calls with the compiled scanner
    (``kineto.jsonscan``: columns, no Python object per event) and leaves
    any chunk holding something else to msgspec (on a big-endian machine
    msgspec reads every chunk); "msgspec" decodes every
    event into a typed struct; "auto" scans traces above
    ``kineto.SCAN_ABOVE_BYTES`` (below, loading the compiled scanner costs
    more than it saves).

    ``max_text_bytes``: the largest text a reader reads whole (a gzip
    file's inflated size included).

    ``workers``: processes that read a big Kineto trace side by side (1 or
    2); None: two for a plain file above ``kineto.halves.PARALLEL_ABOVE_BYTES``
    where a second core is free (``kineto.halves.two_cores``), else one.

    ``quick_numba_load``: load numba for the Kineto scanner without
    importing SciPy, and the scanner's cached machine code without numba's
    whole CPU target (``kineto.numba_load``; the command line asks for
    this, a library caller's process is left as numba leaves it).

    ``progress``: called as ``progress(done, total)`` (bytes; total None
    where not known, as inflating gzip) while a reader goes through a big
    file a chunk at a time (the Kineto reader), so a command can show how
    far it got; None: nothing is called.
    """

    format: str | None = None
    csv_engine: str = "auto"
    stream: bool | None = None
    chunk_bytes: int | None = None
    kineto_engine: str = "auto"
    max_text_bytes: int = MAX_TEXT_BYTES
    workers: int | None = None
    quick_numba_load: bool = False
    progress: Callable[[int, int | None], None] | None = field(default=None, compare=False)

    def __post_init__(self):
        if self.csv_engine not in ENGINES:
            raise RooflineError(f"csv_engine {self.csv_engine!r}: expected one of {', '.join(ENGINES)}")
        if self.kineto_engine not in KINETO_ENGINES:
            raise RooflineError(f"kineto_engine {self.kineto_engine!r}: expected one of {', '.join(KINETO_ENGINES)}")
        if self.chunk_bytes is not None and self.chunk_bytes < 64:
            raise RooflineError(f"chunk_bytes {self.chunk_bytes}: expected at least 64")
        if self.workers not in (None, 1, 2):
            raise RooflineError(f"workers {self.workers}: expected 1 or 2")

DEFAULT = ReadOptions()
