"""Collectives on link roofs: the message-size convention and bus bandwidth
of NVIDIA's nccl-tests, the link roofs a device offers, and the time a
collective needs on them.

Sizes and bandwidths (nccl-tests, ``doc/PERFORMANCE.md`` and the
``*GetBw`` functions of ``src/*.cu``, NVIDIA/nccl-tests a0b82b2):

* ``S``, the message size per rank: the buffer of an all-reduce,
  broadcast, reduce or send/recv; the **whole gathered output** of an
  all-gather (``sendcount x n``); the **whole input** of a reduce-scatter
  (``recvcount x n``); the send buffer of an all-to-all (for the uneven
  ``alltoallv``, which nccl-tests does not measure, this project takes the
  larger of the send and receive sides); gather and scatter the whole
  array (``count x n``). The whole side a trace records (all-gather's
  output, reduce-scatter's input) is ``S`` as it stands; ``count x n``
  only stands in when that side is missing;
* ``algbw = S / t``; ``busbw = algbw x F(n)`` with ``F = 2(n-1)/n`` for
  all-reduce, ``(n-1)/n`` for all-gather, reduce-scatter, all-to-all,
  gather and scatter, ``1`` for broadcast, reduce and send/recv.

Kernel rows carry a collective's quantities in their ``bytes`` under the
``comm:`` keys below (totals over the row's calls, like every other
quantity), so every sum of rows (by name, by family, per rank) keeps them:
``comm:message`` (the sum of ``S``), ``comm:calls`` (calls with a size),
``comm:calls:nvls`` (those of them on NCCL's NVLS algorithms, whose latency
is NCCL's NVLS one), ``comm:steps:intra``/``comm:steps:inter`` (latency
steps, below) and one
``comm:bus:<scope>/<k>/<n>/<kind>`` per link class: the bus bytes
``S x F(n)`` of calls within a node (``intra``) or across nodes
(``inter``), with ``k`` ranks of the group per node, ``n`` ranks in all,
and ``kind`` ``ring`` (collectives whose bus traffic is spread over every
rank's link), ``a2a`` (all-to-all), ``p2p`` (send/recv) or ``nvls``
(all-reduce reduced in the switch: NVLS, ``multimem``).

The time on the roof (``LinkRoofs``) is ``t = alpha + bus bytes / roof``,
the roof the link's bus bandwidth (see :meth:`LinkRoofs.roof`) and
``alpha`` a latency **floor taken from NCCL's tuning model**
(``src/graph/tuning.cc`` of NVIDIA/nccl, ``ncclTopoTuneModel``): NCCL's
ring algorithm with the LL protocol (the least latency it models) for
every collective, a per-step latency per hop (NVLink, PCIe or network)
without NCCL's base latency (``base_latency_s`` 0 in the profiles' link
roofs: a tuning estimate that real small collectives beat, so no floor), ``2(n-1)`` steps for an all-reduce, ``n-1`` for
all-gather and reduce-scatter and ``n`` for broadcast and reduce (NCCL's
``nsteps``; every step over the network when the group spans nodes, as
NCCL's ring broadcast and reduce count them), and for NCCL's NVLS
algorithms two steps (``nvls_latency_s``: the reduction in the switch and
the multicast; NCCL's own NVLS latency, 25 us, is again an estimate). Where it departs from NCCL (:func:`latency_steps`):
no tree, PAT or CollNet latencies (a ring is assumed whatever the kernel
name says); broadcast and reduce never take NCCL's single-step
``sameChannels`` case (the trace does not say); every inter-node step
costs the ring LL network latency (NCCL adds its graph's ``latencyInter``
and a network overhead per step, and the tree network latency at one rank
per node); all-to-all and send/recv (point-to-point in NCCL, outside its
tuning model) take one step, gather and scatter ``n-1``; PyTorch's
symmetric-memory ``multimem`` all-reduce (no NCCL kernel) two NVLink
steps.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Mapping

import numpy as np

COMM_PREFIX = "comm:"
MESSAGE = "comm:message"
CALLS = "comm:calls"
NVLS_CALLS = "comm:calls:nvls"
STEPS_INTRA = "comm:steps:intra"
STEPS_INTER = "comm:steps:inter"
_BUS = "comm:bus:"
KINDS = ("ring", "a2a", "p2p", "nvls")

# canonical collective names, with the bus-bandwidth factor of nccl-tests
ALL_REDUCE, ALL_GATHER, REDUCE_SCATTER, ALL_TO_ALL = "all_reduce", "all_gather", "reduce_scatter", "all_to_all"
BROADCAST, REDUCE, SEND_RECV, GATHER, SCATTER = "broadcast", "reduce", "send_recv", "gather", "scatter"
COLLECTIVES = (ALL_REDUCE, ALL_GATHER, REDUCE_SCATTER, ALL_TO_ALL, BROADCAST, REDUCE, SEND_RECV,
               GATHER, SCATTER)


def bus_factor(collective: str, n: int) -> float:
    """nccl-tests' busbw / algbw for ``collective`` on ``n`` ranks."""
    if n < 1:
        raise ValueError(f"a group has at least one rank, not {n}")
    if collective == ALL_REDUCE:
        return 2.0 * (n - 1) / n
    if collective in (ALL_GATHER, REDUCE_SCATTER, ALL_TO_ALL, GATHER, SCATTER):
        return (n - 1) / n
    if collective in (BROADCAST, REDUCE, SEND_RECV):
        return 1.0
    raise ValueError(f"no bus-bandwidth factor for {collective!r}")


def message_elements(collective: str, n: int, in_elems: float, out_elems: float) -> float:
    """``S`` in elements as nccl-tests counts it, from the per-rank input and
    output element counts a trace records (``In/Out msg nelems``): the
    whole side of an all-gather or gather (its output) and of a
    reduce-scatter or scatter (its input) as recorded, ``n`` times the
    other side only when that one is missing (0); the larger side of the
    rest (this project's convention for the uneven ``alltoallv``, which
    nccl-tests does not measure)."""
    if collective in (ALL_GATHER, GATHER):
        return out_elems if out_elems > 0 else in_elems * n
    if collective in (REDUCE_SCATTER, SCATTER):
        return in_elems if in_elems > 0 else out_elems * n
    return max(in_elems, out_elems)


def group_from_sides(collective: str, in_elems: float, out_elems: float) -> int | None:
    """The group size an all-gather's (gather's) output over its input, or
    a reduce-scatter's (scatter's) input over its output, says: None unless
    both are above 0 and the ratio is a whole number above 1."""
    if collective in (ALL_GATHER, GATHER):
        whole, part = out_elems, in_elems
    elif collective in (REDUCE_SCATTER, SCATTER):
        whole, part = in_elems, out_elems
    else:
        return None
    if not (part > 0 and whole > 0) or not (math.isfinite(part) and math.isfinite(whole)):
        return None
    ratio = whole / part
    n = round(ratio)
    return n if n > 1 and abs(ratio - n) < 1e-9 * ratio else None


def latency_steps(collective: str, n: int, in_switch: bool = False) -> int:
    """Latency steps on the ring base latency: NCCL's ring ``nsteps``
    (``src/graph/tuning.cc``) for all-reduce (``2(n-1)``), all-gather and
    reduce-scatter (``n-1``), broadcast and reduce (``n``: NCCL's case
    without ``sameChannels``); this project's own counts where NCCL's
    tuning model has none: 1 for all-to-all and send/recv (point-to-point,
    every peer at once), ``n-1`` for gather and scatter, 2 for an
    all-reduce in the switch outside NCCL (``multimem``: one reduction and
    one multicast). NCCL's NVLS algorithms take no steps: their latency is
    NCCL's NVLS one (:func:`comm_bytes`)."""
    if n <= 1:
        return 0
    if collective == ALL_REDUCE and in_switch:
        return 2
    if collective == ALL_REDUCE:
        return 2 * (n - 1)
    if collective in (ALL_TO_ALL, SEND_RECV):
        return 1
    if collective in (BROADCAST, REDUCE):
        return n
    return n - 1


def is_nccl_nvls(algorithm: str) -> bool:
    """NCCL's NVLS or NVLS-tree algorithm (from the kernel name)."""
    return algorithm.split(" ")[0] in ("nvls", "nvls_tree", "nvlstree")


def kind_of(collective: str, in_switch: bool = False) -> str:
    if collective == ALL_TO_ALL:
        return "a2a"
    if collective == SEND_RECV:
        return "p2p"
    return "nvls" if in_switch and collective == ALL_REDUCE else "ring"


def bus_key(scope: str, k: int, n: int, kind: str) -> str:
    return f"{_BUS}{scope}/{k}/{n}/{kind}"


def parse_bus_key(key: str) -> tuple[str, int, int, str] | None:
    """(scope, ranks per node, ranks, kind) of a ``comm:bus:`` key, else None."""
    if not key.startswith(_BUS):
        return None
    try:
        scope, k, n, kind = key[len(_BUS):].split("/")
        return scope, int(k), int(n), kind
    except ValueError:
        return None


def is_comm_key(key: str) -> bool:
    return key.startswith(COMM_PREFIX)


@dataclass(frozen=True)
class Collective:
    """What one kernel row communicates (one message size per row).

    ``bytes``: ``S`` per call as nccl-tests counts it; ``nodes``: nodes
    the group spans (1: within a node); ``algorithm``: NCCL's algorithm
    and protocol from the kernel name (``ring ll``, ``nvls simple``) or the
    library's (``multimem``); ``source``: where the size came from;
    ``group``: the process group as that source (or the trace's process
    groups) names it, its name or else its ranks (``""``: unknown);
    ``assumptions``: what was assumed (said with the row)."""

    name: str
    dtype: str = ""
    group_size: int | None = None
    bytes: float = math.nan
    nodes: int = 1
    algorithm: str = ""
    source: str = ""
    assumptions: tuple = ()
    group: str = ""


def comm_bytes(collective: Collective, calls: int, in_switch: bool = False) -> dict:
    """The ``comm:`` quantities of ``calls`` calls of ``collective`` (each
    of size ``collective.bytes``), for a Kernel's ``bytes``."""
    n = collective.group_size or 1
    nodes = max(1, collective.nodes)
    k = max(1, -(-n // nodes)) if nodes > 1 else n
    scope = "inter" if nodes > 1 else "intra"
    s = float(collective.bytes) * calls
    nvls = is_nccl_nvls(collective.algorithm)
    if nvls:        # NCCL: the NVLS latency, plus the network's (1 hop; 2 log2(nodes) for NVLS tree)
        steps = 0 if nodes == 1 else (1 if collective.algorithm.split(" ")[0] == "nvls"
                                      else 2 * math.ceil(math.log2(nodes)))
        inter_steps = steps
    else:
        steps = latency_steps(collective.name, n, in_switch)
        if nodes == 1:
            inter_steps = 0
        elif collective.name in (BROADCAST, REDUCE):
            inter_steps = steps               # NCCL: every ring step on the network
        else:
            inter_steps = 2 * (nodes - 1) if collective.name == ALL_REDUCE else nodes - 1
        inter_steps = min(inter_steps, steps)
    out = {MESSAGE: s, CALLS: float(calls), STEPS_INTRA: float((steps - inter_steps) * calls),
           STEPS_INTER: float(inter_steps * calls)}
    if nvls:
        out[NVLS_CALLS] = float(calls)
    if n > 1:
        out[bus_key(scope, k, n, kind_of(collective.name, in_switch))] = s * bus_factor(collective.name, n)
    return out


@dataclass(frozen=True)
class LinkRoofs:
    """The links a GPU's collectives run on, as bus-bandwidth roofs.

    ``up_bytes_s``: the scale-up link (NVLink, xGMI, or PCIe without them)
    per GPU in one direction, all its links together; through a switch
    (NVSwitch) every group gets it, on a mesh (``up_peer_bytes_s`` set: the
    rate to one peer, AMD's xGMI, DGX-1's NVLink cube-mesh) a group of
    ``k`` ranks uses ``k - 1`` peers' links, at most ``up_links`` of them
    and never more than ``up_bytes_s``. ``net_bytes_s``: the scale-out
    network per GPU, one direction. ``in_switch``: the switch reduces
    (NVLS): an all-reduce in the switch moves ``S`` each way instead of
    ``2(n-1)/n S``, so its roof is raised by ``2(n-1)/n``; without it no
    roof is raised. Latencies in seconds (``nvls_latency_s``: NCCL's NVLS
    algorithms); ``assumed`` lists what is assumed rather than read from a
    datasheet (warned about)."""

    up_name: str
    up_level: str
    up_bytes_s: float
    net_name: str
    net_bytes_s: float
    up_peer_bytes_s: float | None = None
    up_links: int | None = None
    in_switch: bool = False
    base_latency_s: float = 6.6e-6
    up_hop_s: float = 0.6e-6
    net_hop_s: float = 2.7e-6
    nvls_latency_s: float = 25e-6
    net_level: str = "network"
    sources: Mapping[str, str] = field(default_factory=dict)
    assumed: tuple = ()

    def up(self, k: int) -> float:
        """Bus-bandwidth roof among ``k`` ranks of one node (inf for one)."""
        if k <= 1:
            return math.inf
        if self.up_peer_bytes_s is None:
            return self.up_bytes_s
        return min(min(k - 1, self.up_links or k - 1) * self.up_peer_bytes_s, self.up_bytes_s)

    def roof(self, scope: str, k: int, n: int, kind: str) -> float:
        """Bus-bandwidth roof of a collective on ``n`` ranks, ``k`` per node.

        Within a node: the scale-up roof; an in-switch all-reduce sends
        ``S`` out and reads ``S`` back, so its busbw can reach
        ``2(n-1)/n`` times the wire. Across nodes, ring collectives: NCCL
        runs one ring per NIC, so a node's ``k`` NICs carry the bus traffic
        in parallel: ``min(up(k), k x net)``; all-to-all: ``(n-k)/n`` of
        ``S`` crosses the network and ``(k-1)/n`` stays in the node:
        ``min(net (n-1)/(n-k), up(k) (n-1)/(k-1))``; send/recv: the network."""
        up = self.up(k)
        raised = 2.0 * (n - 1) / n if kind == "nvls" and self.in_switch and n > 1 else 1.0
        if scope == "intra":
            return up * raised
        net = self.net_bytes_s
        if kind == "a2a":
            across = net * (n - 1) / (n - k) if n > k else math.inf
            within = up * (n - 1) / (k - 1) if k > 1 else math.inf
            return min(across, within)
        if kind == "p2p":
            return net
        return min(up, k * net) * raised

    def level(self, scope: str) -> str:
        return self.up_level if scope == "intra" else self.net_level


@dataclass(frozen=True)
class LinkTimes:
    """Per row: the link time (``latency + bus bytes / roof``), its latency
    part, the level of the link with the most time, and the bandwidths."""

    time_s: np.ndarray
    latency_s: np.ndarray
    level: np.ndarray          # object: the link's level name, "" without a collective
    message: np.ndarray        # sum of S over the calls (NaN without a collective)
    bus: np.ndarray            # sum of bus bytes over the calls
    assumptions: tuple = ()    # (text, rows) of what the placed collectives assumed

    def terms(self) -> dict[str, np.ndarray]:
        """The link time per level name (NaN on rows of other levels)."""
        return {str(lv): np.where(self.level == lv, self.time_s, math.nan)
                for lv in dict.fromkeys(self.level.tolist()) if lv}


def link_times(ks, links: LinkRoofs | None) -> LinkTimes | None:
    """The link times of the rows of ``ks`` with ``comm:bus:`` bytes (None
    when no row has any, or no links are known)."""
    keys = [k for k in ks.bytes if parse_bus_key(k)]
    if not keys or links is None:
        return None
    n = len(ks)
    bw = np.zeros(n)
    bus = np.zeros(n)
    best = np.zeros(n)
    level = np.full(n, "", dtype=object)
    for key in keys:
        scope, k, ranks, kind = parse_bus_key(key)
        v = np.nan_to_num(ks.bytes[key])
        t = v / links.roof(scope, k, ranks, kind)
        bus += v
        bw += t
        wins = (v > 0) & (t >= best)
        level[wins] = links.level(scope)
        best = np.where(wins, t, best)

    def col(key):
        return np.nan_to_num(ks.bytes[key]) if key in ks.bytes else np.zeros(n)

    nvls = col(NVLS_CALLS)
    latency = ((col(CALLS) - nvls) * links.base_latency_s + nvls * links.nvls_latency_s
               + col(STEPS_INTRA) * links.up_hop_s + col(STEPS_INTER) * links.net_hop_s)
    has = level != ""
    message = np.where(has, col(MESSAGE), math.nan)
    return LinkTimes(np.where(has, bw + latency, math.nan), np.where(has, latency, math.nan), level,
                     message, np.where(has, bus, math.nan), _assumed(ks, has))


def _assumed(ks, has: np.ndarray) -> tuple:
    """What the collectives of the placed rows assumed (``Collective.assumptions``),
    each text with the number of rows that assumed it."""
    counts: dict[str, int] = {}
    collectives = getattr(ks, "collectives", None)
    if collectives is None:
        return ()
    for i in np.flatnonzero(has).tolist():
        c = collectives[i]
        for text in getattr(c, "assumptions", ()) or ():
            counts[text] = counts.get(text, 0) + 1
    return tuple(counts.items())


def column_of(ks, key: str) -> np.ndarray:
    """The row values of the comm: quantity ``key`` (NaN where no row has it)."""
    return ks.bytes[key] if key in ks.bytes else np.full(len(ks), math.nan)


def bus_bytes(ks) -> np.ndarray:
    """Each row's bus bytes over its calls (NaN without a collective)."""
    out = np.full(len(ks), math.nan)
    for key, v in ks.bytes.items():
        if key.startswith(_BUS):
            out = np.where(np.isnan(out), v, out + np.nan_to_num(v))
    return out


COLLECTIVE_ADVICE = ("the trace does not record it: a newer torch writes Group size and Process Group Ranks on "
                     "the kernels, and a rank that sees every GPU of its node lists them in deviceProperties")


def link_warnings(link: LinkTimes, links: LinkRoofs) -> list:
    """What the roofs of the links in use assume (the network rate is in no
    GPU datasheet), once per link, and what the placed collectives assumed
    (a group size, the ranks per node), once per text."""
    from .errors import Advice
    used = set(link.level.tolist())
    out = []
    for level, message, advice in links.assumed:
        if level in used:
            out.append(Advice(message, advice, subject=f"link {level}"))
    for text, rows in link.assumptions:
        out.append(Advice(f"{text} ({rows} row{'s' if rows > 1 else ''})", COLLECTIVE_ADVICE,
                          subject="collectives"))
    return out


@dataclass(frozen=True)
class CommLaunches:
    """Every communication kernel launch of one rank, in launch order: its
    kernel, collective (``""`` when unknown), process group (its name or
    ranks, ``""`` when unknown), message size ``S`` (NaN when unknown),
    start (s, from the trace's first event), duration, and the part of the
    duration no compute kernel (any other kernel, on any stream) overlaps:
    the exposed communication."""

    kernel: tuple
    collective: tuple
    group: tuple
    bytes: np.ndarray
    start_s: np.ndarray
    time_s: np.ndarray
    exposed_s: np.ndarray

    def __len__(self) -> int:
        return len(self.kernel)

    @property
    def total_s(self) -> float:
        return float(np.sum(self.time_s))

    @property
    def exposed_total_s(self) -> float:
        return float(np.sum(self.exposed_s))


def exposed(start: np.ndarray, end: np.ndarray, busy_start: np.ndarray, busy_end: np.ndarray) -> np.ndarray:
    """For each interval ``[start, end]``: its length not covered by the
    union of the ``busy`` intervals (vectorised: the union's measure up to
    x is a sorted prefix sum)."""
    if not len(start):
        return np.zeros(0)
    if not len(busy_start):
        return end - start
    order = np.argsort(busy_start, kind="stable")
    lo, hi = busy_start[order], busy_end[order]
    reach = np.maximum.accumulate(hi)
    new = np.ones(len(lo), dtype=bool)
    new[1:] = lo[1:] > reach[:-1]
    group = np.cumsum(new) - 1
    ulo = lo[new]
    uhi = np.zeros(len(ulo))
    np.maximum.at(uhi, group, hi)
    cum = np.concatenate([[0.0], np.cumsum(uhi - ulo)])

    def covered(x):
        k = np.searchsorted(ulo, x, side="right")      # unions starting at or before x
        last = np.maximum(k - 1, 0)
        part = np.where(k > 0, np.clip(x - ulo[last], 0.0, uhi[last] - ulo[last]), 0.0)
        return cum[last] + part

    return np.maximum((end - start) - (covered(end) - covered(start)), 0.0)
