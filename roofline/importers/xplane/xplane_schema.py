"""The XSpace protobuf schema of TensorFlow/JAX/XLA profiles, and parsing a
``.xplane.pb`` file with the ``protobuf`` runtime.

The profiler of TensorFlow 2.2+, JAX and PyTorch/XLA writes one XSpace per
host (``plugins/profile/<run>/<host>.xplane.pb``). Its schema is
``tsl/profiler/protobuf/xplane.proto`` (package ``tensorflow.profiler``,
proto3); the messages and field numbers it defines are declared below as a
``FileDescriptorProto`` (what ``protoc`` would embed in an ``xplane_pb2``
module) and turned into message classes by the protobuf runtime, so all
wire decoding is the runtime's (upb, in C). No published wheel ships a
Python ``xplane_pb2``: ``xprof``/``tensorboard-plugin-profile`` parse XSpace
in C++ and weigh 330 MB with their dependencies (docs/tensorflow.md).

    XSpace      planes (1), errors (2), warnings (3), hostnames (4)
    XPlane      id (1), name (2), lines (3), event_metadata (4, map int64 ->
                XEventMetadata), stat_metadata (5, map int64 -> XStatMetadata),
                stats (6)
    XLine       id (1), name (2), timestamp_ns (3), events (4),
                duration_ps (9), display_id (10), display_name (11)
    XEvent      metadata_id (1), oneof {offset_ps (2), num_occurrences (5)},
                duration_ps (3), stats (4)
    XStat       metadata_id (1), oneof {double (2), uint64 (3), int64 (4),
                str (5), bytes (6), ref (7): the id of a stat metadata
                whose name is the value}
    XEventMetadata  id (1), name (2), metadata (3), display_name (4),
                stats (5), child_id (6)
    XStatMetadata   id (1), name (2), description (3)

The reader walks the wire format itself (:mod:`.xplane_wire`); the message classes here need the
optional ``protobuf`` package (``pip install 'roofline[tf]'``) and serve tests and benchmarks that write XPlane files,
imported only when they are asked for.
"""
from __future__ import annotations

from functools import lru_cache

from ...core.errors import RooflineError

INSTALL_HINT = "pip install 'roofline[tf]'"
PACKAGE = "tensorflow.profiler"

_I64, _U64, _DOUBLE, _STRING, _BYTES, _MESSAGE = "int64", "uint64", "double", "string", "bytes", "message"
_REPEATED = "repeated"
# message -> fields (name, number, type, message type or None, repeated, oneof or None)
_SCHEMA = {
    "XSpace": [("planes", 1, _MESSAGE, "XPlane", True, None), ("errors", 2, _STRING, None, True, None),
               ("warnings", 3, _STRING, None, True, None), ("hostnames", 4, _STRING, None, True, None)],
    "XPlane": [("id", 1, _I64, None, False, None), ("name", 2, _STRING, None, False, None),
               ("lines", 3, _MESSAGE, "XLine", True, None),
               ("event_metadata", 4, _MESSAGE, "XPlane.EventMetadataEntry", True, None),
               ("stat_metadata", 5, _MESSAGE, "XPlane.StatMetadataEntry", True, None),
               ("stats", 6, _MESSAGE, "XStat", True, None)],
    "XLine": [("id", 1, _I64, None, False, None), ("name", 2, _STRING, None, False, None),
              ("timestamp_ns", 3, _I64, None, False, None), ("events", 4, _MESSAGE, "XEvent", True, None),
              ("duration_ps", 9, _I64, None, False, None), ("display_id", 10, _I64, None, False, None),
              ("display_name", 11, _STRING, None, False, None)],
    "XEvent": [("metadata_id", 1, _I64, None, False, None), ("offset_ps", 2, _I64, None, False, "data"),
               ("num_occurrences", 5, _I64, None, False, "data"), ("duration_ps", 3, _I64, None, False, None),
               ("stats", 4, _MESSAGE, "XStat", True, None)],
    "XStat": [("metadata_id", 1, _I64, None, False, None), ("double_value", 2, _DOUBLE, None, False, "value"),
              ("uint64_value", 3, _U64, None, False, "value"), ("int64_value", 4, _I64, None, False, "value"),
              ("str_value", 5, _STRING, None, False, "value"), ("bytes_value", 6, _BYTES, None, False, "value"),
              ("ref_value", 7, _U64, None, False, "value")],
    "XEventMetadata": [("id", 1, _I64, None, False, None), ("name", 2, _STRING, None, False, None),
                       ("metadata", 3, _BYTES, None, False, None), ("display_name", 4, _STRING, None, False, None),
                       ("stats", 5, _MESSAGE, "XStat", True, None), ("child_id", 6, _I64, None, True, None)],
    "XStatMetadata": [("id", 1, _I64, None, False, None), ("name", 2, _STRING, None, False, None),
                      ("description", 3, _STRING, None, False, None)],
}
# map<int64, V> fields are repeated nested entry messages (key 1, value 2) marked map_entry
_MAP_ENTRIES = {"XPlane": [("EventMetadataEntry", "XEventMetadata"), ("StatMetadataEntry", "XStatMetadata")]}


def _protobuf():
    try:
        from google.protobuf import descriptor_pb2, descriptor_pool, message_factory  # noqa: PLC0415
    except ImportError:
        raise RooflineError("reading .xplane.pb files (TensorFlow/JAX profiles) needs the protobuf "
                            f"package: {INSTALL_HINT}") from None
    return descriptor_pb2, descriptor_pool, message_factory


def add_field(message, pb, package, name, number, kind, type_name, repeated, oneof_index=None):
    """One field of a descriptor built at run time (this schema's, and
    :mod:`.xla_hlo_schema`'s): ``type_name`` a message of ``package``."""
    fdp = pb.FieldDescriptorProto
    field = message.field.add(name=name, number=number,
                              label=fdp.LABEL_REPEATED if repeated else fdp.LABEL_OPTIONAL,
                              type=getattr(fdp, "TYPE_" + kind.upper()))
    if type_name:
        field.type_name = f".{package}.{type_name}"
    if oneof_index is not None:
        field.oneof_index = oneof_index


def classes_of(file, descriptor_pool, message_factory, package: str, names) -> dict:
    """The message classes of a file descriptor, in a pool of their own (the
    package may be registered by tensorflow or jax in the default pool)."""
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file)
    get = getattr(message_factory, "GetMessageClass", None)     # protobuf >= 4.22
    if get is None:                                            # older runtimes (TF 2.x pins protobuf < 5)
        get = message_factory.MessageFactory(pool).GetPrototype
    return {name: get(pool.FindMessageTypeByName(f"{package}.{name}")) for name in names}


@lru_cache(maxsize=1)
def message_classes() -> dict:
    """The schema's message classes by name (``XSpace``, ``XPlane`` ...),
    built once; RooflineError naming the extra when protobuf is missing."""
    pb, descriptor_pool, message_factory = _protobuf()
    file = pb.FileDescriptorProto(name="roofline/xplane.proto", package=PACKAGE, syntax="proto3")
    for name, fields in _SCHEMA.items():
        message = file.message_type.add(name=name)
        for entry, value in _MAP_ENTRIES.get(name, ()):
            nested = message.nested_type.add(name=entry)
            nested.options.map_entry = True
            add_field(nested, pb, PACKAGE, "key", 1, _I64, None, False)
            add_field(nested, pb, PACKAGE, "value", 2, _MESSAGE, value, False)
        oneofs: list[str] = []
        for fname, number, kind, type_name, repeated, oneof in fields:
            if oneof is not None and oneof not in oneofs:
                oneofs.append(oneof)
                message.oneof_decl.add(name=oneof)
            add_field(message, pb, PACKAGE, fname, number, kind, type_name, repeated,
                      None if oneof is None else oneofs.index(oneof))
    return classes_of(file, descriptor_pool, message_factory, PACKAGE, _SCHEMA)
