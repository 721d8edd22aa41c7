"""TensorFlow and JAX profiles: XSpace protobufs (``.xplane.pb``) and
Trace Viewer JSON (``.trace.json.gz``).

- reading: :mod:`.reader` reads an XSpace (schema :mod:`.xplane_schema`,
  wire format :mod:`.xplane_wire`) and :mod:`.xplane_json` a Trace Viewer
  file (its events decoded a chunk at a time by
  :mod:`.xplane_json_chunks`), both into a
  :class:`~.xplane_capture.Capture` (:mod:`.xplane_capture`: what the
  profile says, as columns);
- kernels: :mod:`.xplane_kernels` turns a capture into kernels, reading
  each distinct stats dict once (:mod:`.xplane_stats`) and grouping rows
  by name, device and operator (:mod:`.xplane_rows`);
- work: :mod:`.xplane_work` decides where a kernel's FLOP and bytes come
  from: the HLO modules the profile embeds (:mod:`.xla_hlo`, costed by
  :mod:`.xla_hlo_cost` as XLA's ``HloCostAnalysis`` does, with
  :mod:`.xla_hlo_conv` for convolutions, :mod:`.xla_hlo_shapes` for
  checked shape sizes and :mod:`.xla_hlo_schema` for the protobuf) or
  TensorFlow's op models (:mod:`.xplane_costs`).

May import: ``roofline.core``, ``roofline.ops`` (operator models) and the
shared modules of ``roofline.importers`` (``base``, ``options``,
``cupti``, ``timeline``, and ``kineto``'s chunked scanner for large
JSON); numpy and msgspec, and protobuf (``google``) only inside the
functions that parse a protobuf.
"""
from . import reader  # noqa: F401  (registers the reader)
