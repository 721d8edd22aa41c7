"""The command-line interface: one module per command, :mod:`.main`
building the parser from them and turning the package's one error family
into a one-line message and exit status 2.

- the commands: :mod:`.measure` (calibrate this machine), :mod:`.plot`
  (kernels on the rooflines), :mod:`.classify` (each kernel's bound as a
  table, CSV or JSON), :mod:`.report` (the HTML or Markdown report),
  :mod:`.import_` (``roofline import``: any profile to kernels.csv or
  JSON), :mod:`.diff` (two runs or two devices), :mod:`.project` (a trace
  on another device), :mod:`.devices` (``devices`` and ``show``);
- what several share: :mod:`.common` (reading inputs, choosing the device,
  printing advice) and :mod:`.ranks` (folders of per-rank traces for
  ``classify`` and ``report``, locally or on dask).

May import: everything in the package; it is the only part that knows all
of them. numpy and tqdm. Heavy imports (matplotlib, numba, cupy, the
readers) happen inside each command's run function, so that
``roofline --help`` stays instant.
"""
