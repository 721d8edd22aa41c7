"""The command-line interface: one module per command (``measure``,
``plot``, ``classify``, ``report``, ``import``, ``diff``, ``devices``/``show``),
:mod:`.main` building the parser from them and turning the package's one
error family into a one-line message and exit status 2, :mod:`.common` for
what several commands share (reading inputs, choosing the device, printing
advice) and :mod:`.ranks` for folders of per-rank traces.

May import: everything in the package; it is the only part that knows all
of them. Heavy imports (matplotlib, numba, cupy, the readers) happen
inside each command's run function, so that ``roofline --help`` stays
instant.
"""
