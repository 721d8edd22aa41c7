"""The links a GPU's collectives run on, as roofs (:class:`roofline.core.comm.LinkRoofs`).

* **Scale-up** (within a node): the profile's ``architecture.scale_up_link``
  (NVLink generation and links, NVSwitch or a mesh, AMD's xGMI; rates
  quoted bidirectionally, as NVIDIA and AMD quote them) gives the roof per
  GPU in **one direction**, half the quoted figure: busbw counts what each
  rank sends (nccl-tests), and a rank sends and receives at once. Through a
  switch every group gets all of it; on a mesh
  (``per_peer_bidirectional_bytes_s``: the rate to one peer) a group of
  ``k`` ranks uses ``k - 1`` peers' links. Where a mesh's pairs differ
  (DGX-1's NVLink cube-mesh, MI250X's GCDs; ``per_peer_basis: lowest``)
  every peer is taken at the lowest rate the profile's source gives a
  pair, and the roof says so as an assumption. A link named without a
  rate gives **no link roof** (:func:`missing_links` says what is
  missing): collectives there get reason ``no link roof``. A GPU whose
  profile names no GPU-to-GPU link talks over PCIe: the profile's PCIe
  level (one direction), when that level is PCIe (not an APU's or a
  superchip's host link, ``architecture.host_link``), as an assumption.
  NVLink 4 and 5 through NVSwitch (Hopper, Blackwell) reduce in the switch
  (NVLS): an all-reduce's busbw may reach ``2(n-1)/n`` times the wire.
* **Scale-out** (across nodes): the network rate per GPU in one direction.
  No GPU datasheet gives it: a profile may state it
  (``architecture.scale_out_network``: ``{name, bytes_s, source}``), the
  ``--network`` option sets it (:func:`parse_network`), else it is the
  network of NVIDIA's reference system for the GPU (one NIC per GPU), with
  a warning that it is assumed.
* **Latency**: NCCL's per-step latencies and ring step counts, without its
  base latencies, which real collectives beat (:data:`LATENCY`; where it
  departs from NCCL, :mod:`roofline.core.comm`).
"""
from __future__ import annotations

import re
from dataclasses import replace
from typing import NamedTuple

from ..core.comm import LinkRoofs
from ..core.errors import RooflineError
from ..core.model import Device

# NCCL's latency constants (src/graph/tuning.cc, SRC["nccl_tuning"]): the ring
# base latency and the per-step latency by hop kind (ring, LL protocol), and
# the NVLS algorithms' latency over NVLink (Simple protocol, no base latency).
# The roof takes only the per-step ones: the base latencies are NCCL's tuning
# estimates, not a floor (an 8-rank RCCL broadcast of 160 B ran in 5.9 us on
# MI300X, under the 6.6 us ring base alone); an NVLS call takes two NVLink
# steps (the reduction in the switch and the multicast back) in place of 25 us.
LATENCY = {"base": 6.6e-6, "nvlink": 0.6e-6, "pcie": 1.0e-6, "network": 2.7e-6, "nvls": 25e-6}

GBIT = 1e9 / 8
# Network names --network takes: per GPU, one direction (InfiniBand 4x port rates)
NETWORKS = {"edr": ("InfiniBand EDR 100 Gb/s", 100 * GBIT), "hdr": ("InfiniBand HDR 200 Gb/s", 200 * GBIT),
            "ndr": ("InfiniBand NDR 400 Gb/s", 400 * GBIT), "xdr": ("InfiniBand XDR 800 Gb/s", 800 * GBIT)}
# The reference system's network per GPU, by a word of the GPU's name (first
# match): (word, bytes/s, what, the SRC key of the document)
_REFERENCE = (
    ("V100", 50 * GBIT, "DGX-1: four 100 Gb/s EDR NICs for eight GPUs", "dgx1_net"),
    ("A100", 200 * GBIT, "DGX A100: one 200 Gb/s HDR NIC per GPU", "dgx_a100"),
    ("H100", 400 * GBIT, "DGX H100: one 400 Gb/s ConnectX-7 per GPU", "dgx_basepod"),
    ("H200", 400 * GBIT, "DGX H200: one 400 Gb/s ConnectX-7 per GPU", "dgx_basepod"),
    ("H800", 400 * GBIT, "as DGX H100: one 400 Gb/s NIC per GPU", "dgx_basepod"),
    ("H20", 400 * GBIT, "as DGX H100: one 400 Gb/s NIC per GPU", "dgx_basepod"),
    ("GH200", 400 * GBIT, "as DGX H100: one 400 Gb/s NIC per GPU", "dgx_basepod"),
    ("B200", 400 * GBIT, "DGX B200: one 400 Gb/s ConnectX-7 per GPU", "dgx_basepod"),
    ("GB200", 400 * GBIT, "as DGX B200: one 400 Gb/s NIC per GPU", "dgx_basepod"),
)
_DEFAULT_NET = (400 * GBIT, "one 400 Gb/s NIC per GPU, as NVIDIA's DGX H100/H200/B200", "dgx_basepod")


# Documents cited by the links of the older data-center profiles and by
# these roofs; roofline.devices.gpus.sources merges them into SRC.
SRC_LINKS = {
    "hgx_a100": ("NVIDIA developer blog, 'Introducing NVIDIA HGX A100' (2020): on the HGX A100 8-GPU baseboard six "
                 "NVSwitches join the 12 NVLink ports of every A100, so any GPU reaches any other at the full "
                 "600 GB/s bidirectional"),
    "dgx_basepod": ("NVIDIA DGX BasePOD reference architecture, 'Core Components' (docs.nvidia.com): DGX H100 and "
                    "H200 with four NVSwitch chips and eight single-port ConnectX-7 (up to 400 Gb/s InfiniBand/"
                    "Ethernet) for the compute fabric; DGX B200 with eight single-port ConnectX-7 up to 400 Gb/s"),
    "dgx_a100": ("NVIDIA DGX A100 system specifications (2020): eight single-port Mellanox ConnectX-6 VPI 200 Gb/s "
                 "HDR InfiniBand adapters for the compute fabric, one per GPU"),
    "dgx1_net": ("NADDOD blog (third-party), 'HPC Networking: Delivering High Performance for DGX Server' (2023): "
                 "DGX-1 (eight V100) has four single-port 100 Gb/s EDR InfiniBand NICs"),
    "nccl_tuning": ("NVIDIA/nccl src/graph/tuning.cc (commit 5067397c, 2026), NCCL's latency model, simplified "
                    "here: base latency 6.6 us (ring, LL protocol; 6.8 tree), and per step of the algorithm 0.6 us "
                    "over NVLink, 1.0 us over PCIe, 2.7 us over the network (ring, LL); ring nsteps 2(n-1) for "
                    "all-reduce, n-1 for all-gather and reduce-scatter, n for broadcast and reduce; NVLS (Simple "
                    "protocol only) 25 us over NVLink in place of the base latency"),
    "dgx1_v100": ("NVIDIA, 'NVIDIA DGX-1 With Tesla V100 System Architecture' whitepaper (2017), as quoted on IIT "
                  "Roorkee's DGX page (iitr.ac.in/dgx): each V100 has six NVLinks, each a point-to-point link to "
                  "another GPU at 25 GB/s in each direction, aggregated between a pair for more; DGX-1's hybrid "
                  "cube-mesh joins all twelve edges of a cube (some edges with two NVLinks) and the diagonals of "
                  "two faces, so a pair of GPUs has two links, one, or none; it is also three interwoven rings of "
                  "single NVLinks"),
}


def _source(key: str) -> str:
    return SRC_LINKS[key]


NETWORK_ADVICE = ("give the job's network per GPU with --network (ndr, hdr, '400Gb/s', '50GB/s') or "
                  "architecture.scale_out_network in the device profile")


_PREFIX = {"k": 1e3, "m": 1e6, "g": 1e9, "t": 1e12}
_UNIT = re.compile(r"([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*(?:([kKmMgGtT])?\s*"
                   r"([bB]its?/s|[bB]its?|bps|Bps|[bB]ytes?/s|[bB]ytes?|B/s|b/s|B|b)?)?")
MAX_NETWORK = 1e15      # bytes/s per GPU: a thousand times today's fastest NIC; beyond it a typo
_FORMS = "ndr, hdr, edr, xdr, or a rate with its unit such as 400Gb/s, 400Gbit/s or 50GB/s"


def parse_network(text: str) -> tuple[str, float]:
    """``ndr``, ``hdr``, ``400Gb/s``, ``400Gbit/s``, ``400gbps``, ``50GB/s``,
    ``50e9B/s`` -> (name, bytes/s per GPU in one direction). ``b`` is bits
    and ``B`` bytes; ``gb/s`` (which could be either), a number without a
    unit and a rate that is not finite are refused."""
    key = text.strip().lower().replace("infiniband", "").replace("ib-", "").replace("ib", "").strip(" -_")
    if key in NETWORKS:
        return NETWORKS[key]
    raw = text.strip()
    m = _UNIT.fullmatch(raw)
    if not m:
        raise RooflineError(f"--network {text!r}: expected ndr, hdr, edr, xdr or a rate such as 400Gb/s or 50GB/s")
    value, prefix, unit = float(m.group(1)), m.group(2), m.group(3) or ""
    if prefix is None and not unit:     # '400' read as 400 B/s made every collective network-bound
        raise RooflineError(f"--network {text!r}: a number without a unit (bits or bytes per second?): expected "
                            f"{_FORMS}")
    if prefix is None:
        low = unit.lower()
        bits = low.startswith("bit") or unit in ("b/s", "b", "bps")
        rate = value / (8 if bits else 1)
    else:
        low = unit.lower()
        if low.startswith("bit") or unit == "bps":
            bits = True
        elif low.startswith("byte") or unit in ("B/s", "Bps", "B"):
            bits = False
        elif prefix.isupper() or prefix == "k":       # Gb/s, Tb/s, kb/s: bits
            bits = True
        else:
            raise RooflineError(
                f"--network {text!r}: '{prefix}{unit or 'b'}' could be bits or bytes: write "
                f"{m.group(1)}{prefix.upper()}b/s (or {m.group(1)}{prefix.upper()}bit/s) for bits per second, "
                f"{m.group(1)}{prefix.upper()}B/s for bytes per second")
        rate = value * _PREFIX[prefix.lower()] / (8 if bits else 1)
    if not (0 < rate <= MAX_NETWORK):     # 1e400 parses to infinity
        raise RooflineError(f"--network {text!r}: the rate must be positive and finite, at most "
                            f"{MAX_NETWORK:.0e} B/s per GPU; expected {_FORMS}")
    return f"network {raw}", rate


class ScaleUp(NamedTuple):
    """A GPU's scale-up link as a roof (per GPU, one direction)."""

    name: str                   # "NVLink 4 via NVSwitch"
    level: str                  # the limiter's name: NVLink, xGMI, PCIe P2P
    bytes_s: float              # all its links together
    peer_bytes_s: float | None  # a mesh: the rate to one peer (None: a switch)
    links: int | None           # a mesh: the links a GPU has
    hop_s: float                # NCCL's per-step latency on this hop kind
    in_switch: bool             # the switch reduces (NVLS)
    source: str
    assumed: tuple              # what is assumed of it (texts)


LINK_ADVICE = "give a device profile whose scale_up_link states the GPU's links and their rate"


def link_roofs(device: Device, network: str | None = None) -> LinkRoofs | None:
    """The collective roofs of a GPU profile (None for a CPU, or a GPU
    whose scale-up roof is unknown: :func:`missing_links` says why)."""
    if device.kind != "gpu":
        return None
    arch = dict(device.architecture or {})
    up = _scale_up(arch, device)
    if isinstance(up, str):
        return None
    net_name, net_rate, net_source, net_assumed = _scale_out(arch, device, network)
    assumed = []
    if net_assumed:
        assumed.append(("network", (f"the network is not in any GPU datasheet: {net_assumed} assumed "
                                    f"({net_rate * 8 / 1e9:.0f} Gb/s per GPU, one direction)"), NETWORK_ADVICE))
    for text in up.assumed:
        assumed.append((up.level, text, LINK_ADVICE))
    return LinkRoofs(
        up_name=up.name, up_level=up.level, up_bytes_s=up.bytes_s, net_name=net_name,
        net_bytes_s=net_rate, up_peer_bytes_s=up.peer_bytes_s, up_links=up.links, in_switch=up.in_switch,
        base_latency_s=0.0, up_hop_s=up.hop_s, net_hop_s=LATENCY["network"], nvls_latency_s=2 * up.hop_s,
        sources={"scale-up": up.source, "network": net_source, "latency": _source("nccl_tuning")},
        assumed=tuple(assumed))


def missing_links(device: Device) -> str:
    """Why a GPU profile has no link roof (``""`` when it has one, or is a CPU)."""
    if device.kind != "gpu":
        return ""
    up = _scale_up(dict(device.architecture or {}), device)
    return up if isinstance(up, str) else ""


def with_links(device: Device, network: str | None = None) -> Device:
    """``device`` with its link roofs (unchanged for a CPU)."""
    roofs = link_roofs(device, network)
    return device if roofs is None and device.links is None else replace(device, links=roofs)


def _scale_up(arch: dict, device: Device) -> ScaleUp | str:
    """The scale-up roof, or what is missing for one (a string)."""
    link = arch.get("scale_up_link")
    if isinstance(link, dict) and isinstance(link.get("link"), str):
        return _named_link(link)
    pcie = device.memory.get("PCIe")
    host = arch.get("host_link")
    if pcie is None or host:
        what = (f"its host link ({host}) is no PCIe" if host else "it has no PCIe level")
        return (f"the {device.name} profile names no GPU-to-GPU link (architecture.scale_up_link), and {what} "
                f"to stand in for one")
    return ScaleUp("PCIe (no GPU-to-GPU link in the profile)", "PCIe P2P", pcie.bytes_s, None, None,
                   LATENCY["pcie"], False, pcie.bandwidth.source,
                   ("GPU-to-GPU traffic over PCIe assumed: the profile names no NVLink or xGMI link",))


def _named_link(link: dict) -> ScaleUp | str:
    name = link["link"]
    both = _rate(link.get("bidirectional_bytes_s"))
    per_link = _rate(link.get("per_link_bidirectional_bytes_s"))
    links = link.get("links") if isinstance(link.get("links"), int) and link.get("links") > 0 else None
    per_peer = _rate(link.get("per_peer_bidirectional_bytes_s"))
    if both is None and per_link is not None and links:
        both = per_link * links
    if both is None:
        lacking = ("per_link_bidirectional_bytes_s" if links else
                   "links and per_link_bidirectional_bytes_s" if per_link is None else "links")
        return (f"the profile names its {name} link without a rate (scale_up_link.{lacking} missing"
                + (f": {link['source']}" if link.get("source") else "") + ")")
    low = name.lower()
    pcie = low.startswith("pcie")
    level = "PCIe P2P" if pcie else ("xGMI" if "xgmi" in low or "infinity" in low else name.split()[0])
    topology = str(link.get("topology", ""))
    switch = "NVSwitch" in topology
    in_switch = bool(re.search(r"NVLink [45]", name)) and switch
    source = str(link.get("source", ""))
    assumed = []
    if link.get("basis") == "assumption":
        assumed.append(f"the {name} rate is an assumption ({source[:120]})")
    if per_peer is not None and link.get("per_peer_basis") == "lowest":
        assumed.append(f"{name} mesh rate assumed: every peer at the lowest rate of a pair, "
                       f"{per_peer / 2e9:.0f} GB/s each way ({link.get('per_peer_note', topology)})")
    elif per_peer is None and not switch and not pcie:
        assumed.append(f"the profile does not say how the {name} links join the GPUs: every group is assumed "
                       f"to reach all of them, as through a switch")
    return ScaleUp(name + (" via NVSwitch" if switch else ""), level, both / 2,
                   per_peer / 2 if per_peer else None, links if per_peer else None,
                   LATENCY["pcie"] if pcie else LATENCY["nvlink"], in_switch, source, tuple(assumed))


def _scale_out(arch: dict, device: Device, network: str | None):
    if network:
        name, rate = parse_network(network)
        return name, rate, "--network", ""
    stated = arch.get("scale_out_network")
    if isinstance(stated, dict) and _rate(stated.get("bytes_s")):
        return (str(stated.get("name", "network")), _rate(stated["bytes_s"]), str(stated.get("source", "")), "")
    words = device.name.upper()
    for word, rate, what, key in _REFERENCE:
        if re.search(rf"\b{word}\b", words):
            return "network", rate, f"{what}: {_source(key)}", what
    rate, what, key = _DEFAULT_NET
    return "network", rate, f"{what}: {_source(key)}", what


def _rate(x) -> float | None:
    return float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) and x > 0 else None
