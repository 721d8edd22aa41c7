"""The datasheet table: published architecture parameters of every GPU with
a built-in profile, each with the documents it comes from.

One module per group of architectures (:mod:`.kepler_to_volta`,
:mod:`.ampere_hopper`, :mod:`.ada_blackwell`, :mod:`.blackwell_datacenter`,
:mod:`.amd` for CDNA2, :mod:`.cdna3`, :mod:`.cdna4`, :mod:`.variants` for
the H100 NVL, A30, RTX 2070 SUPER and MI210), the parameter type in
:mod:`.spec` and the cited documents and shared per-architecture figures in
:mod:`.sources` (which merges the documents of :mod:`.sources_2025` and
:mod:`.sources_variants`). Nothing here computes a ceiling: that is
:mod:`roofline.devices.datasheet`.

May import: ``roofline.core`` and the rest of ``roofline.devices``
(:mod:`.sources` takes link figures from :mod:`roofline.devices.links`);
the standard library only, so the table is plain data.
"""
from __future__ import annotations

from . import ada_blackwell, amd, ampere_hopper, blackwell_datacenter, cdna3, cdna4, kepler_to_volta, variants
from .sources import SRC
from .spec import BASIS, GpuSpec

SPECS: tuple[GpuSpec, ...] = (kepler_to_volta.SPECS + ampere_hopper.SPECS + ada_blackwell.SPECS
                              + blackwell_datacenter.SPECS + amd.SPECS + cdna3.SPECS + cdna4.SPECS
                              + variants.SPECS)
SPECS_BY_STEM: dict[str, GpuSpec] = {s.stem: s for s in SPECS}

__all__ = ["BASIS", "SPECS", "SPECS_BY_STEM", "SRC", "GpuSpec"]
