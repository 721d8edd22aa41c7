"""The core: what a device can do, what a kernel did, and the verdict of
putting one on the other.

- :mod:`.model`: the types (``Device`` with its ``Ceiling``/``MemoryLevel``
  roofs, ``Kernel``, the columnar ``KernelSet``), all in SI units;
- :mod:`.placement`: kernels placed on a device's rooflines (``place``,
  ``Placements``, ``Rules``) and the bound class of each, with
  :mod:`.compulsory` (which level modelled bytes come from) and
  :mod:`.cores` (one-core roofs for one-thread kernels);
- :mod:`.families`: kernel families from names; :mod:`.aggregate`: rows
  summed by name, variant or family, as columns;
- :mod:`.units` (SI in, prefixes out), :mod:`.errors` (the one error family
  and ``Advice``), and the small file utilities every layer shares:
  :mod:`.atomic` (no half-written file), :mod:`.gcpause`,
  :mod:`.csv_cells` (spreadsheet-safe CSV cells).

May import: nothing of roofline outside ``roofline.core``; numpy, and the
standard library. Everything else in the package depends on it.
"""
