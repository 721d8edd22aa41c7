"""TensorFlow and JAX profiles: XSpace protobufs (``.xplane.pb``) and
Trace Viewer JSON (``.trace.json.gz``).

:mod:`.reader` reads an XSpace (schema :mod:`.xplane_schema`, wire format
:mod:`.xplane_wire`) and :mod:`.xplane_json` a Trace Viewer file, both
into a :class:`~.xplane_capture.Capture`; :mod:`.xplane_kernels` turns a
capture into kernels, their work from the HLO modules the profile embeds
(:mod:`.xla_hlo` and its ``xla_hlo_*`` helpers) or from TensorFlow's op
models (:mod:`.xplane_costs`), as :mod:`.xplane_work` decides.

May import: ``roofline.core``, ``roofline.ops`` (operator models) and the
shared modules of ``roofline.importers`` (``kineto``'s chunked scanner for
large JSON).
"""
from . import reader  # noqa: F401  (registers the reader)
