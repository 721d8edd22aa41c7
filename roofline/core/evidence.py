"""Evidence that a kernel's time does not scale with its work: overhead.

Overhead is what does not grow with the problem ("Making Deep Learning Go
Brrrr"). A kernel far below its roof is not overhead-bound for that alone:
it may be a slow compute- or bandwidth-bound kernel. So overhead is claimed
only on one of these, strongest first:

1. **A fixed cost fitted across sizes.** The same operator (CPU traces) or
   kernel (GPU traces, kernels.csv) seen at several sizes in one profile:
   per call, ``t = a + k r``, where ``r`` is the call's roofline time
   (its work or bytes at the roof), ``a`` the fixed cost and ``1 / k`` the
   efficiency of the part that scales. ``a`` and ``k`` are fitted on
   relative error, so small and large calls weigh alike. A fit
   needs at least :data:`MIN_SIZES` distinct sizes spanning a factor
   :data:`MIN_SPAN` in roofline time, and must describe them within a
   factor :data:`MAX_SCATTER` (root mean square). A fit is kept only where
   it is plausible (:func:`_within_shortest`, :func:`plausible_fits`): a
   fixed cost larger than the group's shortest call (by more than the
   fit's scatter) claims a call took less than its fixed cost; and
   on a CPU, a fixed cost more than :data:`FAR_ABOVE` x the typical fixed
   cost of the trace's element-wise operators (the framework's dispatch,
   which every operator pays) is slow work the fit took for a constant,
   not overhead. Either is no fixed cost: the row keeps its other
   evidence, and the number of discarded fits is reported.
2. **Time near the profile's floor.** The floor is the least a call costs
   in this profile: the median fixed cost of its fits, else its shortest
   call (an upper bound on the device's minimum kernel duration) when it has
   at least :data:`FLOOR_ROWS` timed rows (one kernel is no floor for
   itself), else the device's kernel floor observed on real traces
   (``architecture.kernel_floor_s``), and only when that is under
   ``Rules.substantial_s``. A kernel with no fit of its
   own whose call lasts at most :data:`NEAR_FLOOR` x the floor, while its
   roofline time is under half that call, pays the floor as fixed cost.
3. **Too small to fill the device**: a GPU launch of B thread blocks on a
   device of S > B multiprocessors keeps B/S of them busy, where the
   launch configuration and the SM count are known: its compute roof is
   B/S of the device's (:func:`grid_fill`; the placement lowers it; a few
   SMs pull more than their share of DRAM, so the memory roofs stay),
   which is a reason, not overhead (its time still scales with its work). Overhead
   evidence is any kernel whose roofline time per call is under half the floor:
   at the roof its work would be over before the least call of the profile
   is, so no part of its time can be the work's (the bytes it moves are
   fewer than the device keeps in flight).
4. **Dispatch**: a framework operator that does no work of its own (a
   wrapper such as ``aten::linear`` around ``aten::addmm``, or a view),
   whose self time is the framework's.

Whatever the evidence, a kernel whose roofline time per call is at least
``Rules.substantial_s`` (100 us) is never overhead-bound: no fixed cost
comes near it, so it is compute- or bandwidth-bound at low efficiency.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .object_codes import distinct_objects

MIN_SIZES = 3          # distinct roofline times per call in a group (min, max and one between)
MIN_SPAN = 10.0        # largest / smallest roofline time per call in the group
MAX_SCATTER = 2.0      # rms factor between the fit and the calls
NEAR_FLOOR = 2.0       # a call this close to the profile's floor is dominated by it
FLOOR_ROWS = 10        # timed rows a profile needs for its shortest call to be a floor

FIT, FLOOR = 1, 2      # basis of a row's fixed cost: its own group's fit, the profile's floor
# A fitted fixed cost more than this many times the typical one of a CPU
# trace's element-wise operators is not dispatch: an order of magnitude
# above the per-call cost every operator pays (see plausible_fits).
FAR_ABOVE = 10.0


@dataclass(frozen=True)
class FixedCosts:
    """Per row: the fixed time per call the evidence gives (NaN: none) and
    its basis (0 none, :data:`FIT`, :data:`FLOOR`); per profile: how many
    groups were fitted, their median fixed cost, and the floor (see the
    module doc; NaN when there is none)."""

    fixed_s: np.ndarray
    basis: np.ndarray
    groups_fitted: int
    typical_s: float
    floor_s: float = math.nan
    groups_discarded: int = 0       # fits found implausible (plausible_fits) and dropped
    dispatch_s: float = math.nan    # CPU: the element-wise operators' typical fixed cost (NaN: none)


def group_keys(names: np.ndarray, operators: np.ndarray) -> np.ndarray:
    """What one fixed cost is shared by: the operator when the row is an
    operator at one size (CPU traces name rows ``aten::add_(256x1024, ...)``),
    else the kernel name (a GPU kernel launched at many sizes)."""
    out = names.copy()
    for i in np.flatnonzero(operators != ""):
        if str(names[i]).startswith(str(operators[i])):
            out[i] = operators[i]
    return out


def fixed_costs(keys: np.ndarray, time_per_call: np.ndarray, roof_per_call: np.ndarray,
                floor_cap_s: float = math.inf, elementwise: np.ndarray | None = None,
                cap_s: float = math.inf, device_floor_s: float = math.nan) -> FixedCosts:
    """Fixed costs from fits over the rows sharing a key, then the floor for
    rows without a fit of their own (see the module doc); a floor of
    ``floor_cap_s`` or more is no fixed cost and is not used.
    ``elementwise`` (CPU traces): the rows of element-wise operators, whose
    typical fit is the dispatch cost the other fits are checked against;
    ``cap_s``: the most a fixed cost can be when no element-wise operator
    has a fit (:func:`plausible_fits`). ``device_floor_s``: the device's
    kernel floor observed on real traces, the floor where the profile gives
    none (too few rows: a lone 5 us kernel is at a V100's floor)."""
    n = len(keys)
    fixed = np.full(n, math.nan)
    basis = np.zeros(n, dtype=np.int8)
    usable = np.isfinite(time_per_call) & (time_per_call > 0) & np.isfinite(roof_per_call) & (roof_per_call > 0)
    idx = np.flatnonzero(usable)
    fitted = []
    discarded, dispatch = 0, math.nan
    if len(idx):
        codes = _codes(keys[idx])
        fits, shortest, scatter = _group_fits(codes, roof_per_call[idx], time_per_call[idx])
        a = _within_shortest(fits, shortest, scatter)
        a, dispatch = plausible_fits(a, codes, None if elementwise is None else elementwise[idx], cap_s)
        discarded = int(np.sum(np.isfinite(fits) & ~np.isfinite(a)))
        ok = np.isfinite(a)
        fitted = a[ok].tolist()
        rows = ok[codes]
        fixed[idx[rows]] = a[codes[rows]]
        basis[idx[rows]] = FIT
    typical = float(np.median(fitted)) if fitted else math.nan
    timed = np.isfinite(time_per_call) & (time_per_call > 0)
    floor = typical if fitted else (float(time_per_call[timed].min()) if timed.sum() >= FLOOR_ROWS else math.nan)
    if not math.isfinite(floor):
        floor = device_floor_s
    if not floor < floor_cap_s:
        floor = math.nan
    if math.isfinite(floor):
        near = (usable & (basis == 0) & (time_per_call <= NEAR_FLOOR * floor)
                & (roof_per_call <= 0.5 * time_per_call))
        fixed[near] = np.minimum(floor, time_per_call[near])
        basis[near] = FLOOR
    return FixedCosts(fixed, basis, len(fitted), typical, floor, discarded, dispatch)


def plausible_fits(a: np.ndarray, codes: np.ndarray, elementwise: np.ndarray | None,
                   cap_s: float = math.inf) -> tuple[np.ndarray, float]:
    """The group fits ``a`` (:func:`_fits`: none is larger than its group's
    shortest call) with those far above dispatch set to NaN, and the
    dispatch cost they were checked against (NaN: none). Only with
    ``elementwise`` (a CPU trace): the dispatch cost is the median fit of
    the groups all of whose rows are element-wise operators, which pay the
    framework's per-call path and move their data, nothing else; a fit more
    than :data:`FAR_ABOVE` x that, or than ``cap_s`` where no element-wise
    group has a fit, is discarded (a convolution's 2 ms "fixed cost" beside
    5 us element-wise ones is slow work the fit took for a constant)."""
    if elementwise is None:
        return a, math.nan
    n = len(a)
    rows = np.bincount(codes, minlength=n)
    ew = (np.bincount(codes, weights=elementwise.astype(float), minlength=n) == rows) & (rows > 0)
    reference = a[ew & np.isfinite(a)]
    dispatch = float(np.median(reference)) if len(reference) else math.nan
    cap = FAR_ABOVE * dispatch if math.isfinite(dispatch) else cap_s
    with np.errstate(invalid="ignore"):
        return np.where(a <= cap, a, math.nan), dispatch


def _codes(values: np.ndarray) -> np.ndarray:
    """A group number per row, equal for equal keys, numbered by first
    appearance (Arrow's hash encoding: a million keys in a tenth of a second;
    a hundredth where the rows share a few key objects, :mod:`.object_codes`)."""
    import pyarrow as pa
    values = np.asarray(values, dtype=object)
    if len(values) and _all_equal(values):       # one group (no operators): no hashing
        return np.zeros(len(values), dtype=np.int64)
    shared = distinct_objects(values)
    if shared is not None:      # rows share a few objects: their keys hashed once each, then spread
        distinct, codes = shared
        return _codes(distinct)[codes]
    try:
        # from the object array itself: its tolist() cost as much as the encoding
        strings = pa.array(values, type=pa.string())
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        # a name that is not a string (None, NaN, a number from a hand-made
        # table) groups by its text
        strings = pa.array(values.astype(str).tolist(), type=pa.string())
    encoded = strings.dictionary_encode()
    return encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64)


def _all_equal(values: np.ndarray) -> bool:
    """Whether every value is the first (a string; NaN never equals itself)."""
    first = values[0]
    if not isinstance(first, str) or values[-1] != first or values[len(values) // 2] != first:
        return False                # most columns of many keys differ at one of these: no full pass
    return bool((values == first).all())


def _fit(r: np.ndarray, t: np.ndarray) -> float | None:
    """The fixed cost of one group's calls (:func:`_fits`), None where it
    cannot be told."""
    a = _fits(np.zeros(len(r), dtype=np.int64), np.asarray(r, dtype=float), np.asarray(t, dtype=float))[0]
    return None if math.isnan(a) else float(a)


def _fits(g: np.ndarray, r: np.ndarray, t: np.ndarray) -> np.ndarray:
    """The fixed costs of :func:`_group_fits` no larger than their group's
    shortest call (:func:`_within_shortest`)."""
    return _within_shortest(*_group_fits(g, r, t))


def _within_shortest(a: np.ndarray, shortest: np.ndarray, scatter: np.ndarray) -> np.ndarray:
    """A fixed cost larger than the group's shortest call is no fixed cost
    (a call took less than it): NaN. Within the fit's own scatter of it
    (the rounding of a time, the noise of one call) the fit cannot tell
    the two apart, and the fixed cost is the shortest call."""
    with np.errstate(invalid="ignore"):
        return np.where(a <= shortest * scatter, np.minimum(a, shortest), math.nan)


def _group_fits(g: np.ndarray, r: np.ndarray, t: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The fixed cost ``a`` of ``t = a + k r`` per group ``g`` (NaN where
    the group cannot tell it: too few sizes, too narrow a span, a poor
    fit). Least squares on relative error (weights 1/t^2): linear in ``a``
    and ``k``, so solved in closed form for all groups at once, with
    ``a >= 0``; every sum is a bincount over the groups. Where the time
    does not grow with the work at all, each call is all fixed cost, and
    the shortest call bounds it. With each group's shortest call and the
    fit's scatter (its rms factor)."""
    n = int(g.max()) + 1
    lo = np.full(n, np.inf)
    hi = np.zeros(n)
    np.minimum.at(lo, g, r)
    np.maximum.at(hi, g, r)
    # MIN_SIZES (3) distinct sizes: the smallest, the largest and one in
    # between (no sort needed)
    between = np.bincount(g, weights=(r > lo[g]) & (r < hi[g]), minlength=n) > 0
    enough = between & (hi >= MIN_SPAN * lo)

    def total(x):
        return np.bincount(g, weights=x, minlength=n)
    # times near the ends of the float range (1e-300 s, denormals) overflow
    # the weights; such a group's sums are not finite and it gets no fit
    with np.errstate(all="ignore"):
        w = 1.0 / t ** 2
        sw, sr, srr, st, srt = total(w), total(w * r), total(w * r * r), total(w * t), total(w * r * t)
        det = sw * srr - sr * sr
        a = (srr * st - sr * srt) / det
        k = (sw * srt - sr * st) / det
        no_fixed = a < 0                # no fixed cost to speak of: t = k r
        a, k = np.where(no_fixed, 0.0, a), np.where(no_fixed, srt / srr, k)
        tmin = np.full(n, np.inf)
        np.minimum.at(tmin, g, t)
        flat = ~(k > 0)                 # the time does not grow with the work at all
        a, k = np.where(flat, st / sw, a), np.where(flat, 0.0, k)
        model = a[g] + k[g] * r
        positive = np.bincount(g, weights=(model <= 0), minlength=n) == 0
        calls = np.bincount(g, minlength=n)
        log_ratio = np.log(np.where(model > 0, model, 1.0) / t)
        scatter = np.exp(np.sqrt(total(log_ratio ** 2) / calls))
    good = enough & (det > 0) & positive & (scatter <= MAX_SCATTER) & np.isfinite(a)
    a = np.where(flat, np.minimum(a, tmin), a)     # the scatter was judged on the fit itself
    return np.where(good, a, np.nan), tmin, scatter


def carried(fixed_s: np.ndarray, count: np.ndarray, codes: np.ndarray, n: int,
            whole: FixedCosts | None = None) -> FixedCosts:
    """The fixed costs of rows summed into ``n`` groups (``codes``: each
    row's group): per group, the calls-weighted mean over the members that
    have one, so a group keeps the evidence of its rows instead of fitting
    its sums again (which have lost the sizes)."""
    has = np.isfinite(fixed_s)
    w = np.where(has, count, 0.0)
    calls = np.bincount(codes, weights=w, minlength=n)
    total = np.bincount(codes, weights=np.where(has, fixed_s * count, 0.0), minlength=n)
    with np.errstate(invalid="ignore", divide="ignore"):
        fixed = np.where(calls > 0, total / calls, math.nan)
    basis = np.where(np.isfinite(fixed), FIT, 0).astype(np.int8)
    if whole is None:
        return FixedCosts(fixed, basis, 0, math.nan)
    return FixedCosts(fixed, basis, whole.groups_fitted, whole.typical_s, whole.floor_s,
                      whole.groups_discarded, whole.dispatch_s)


def under_filled(blocks: np.ndarray, multiprocessors: int | None, roof_per_call: np.ndarray,
                 floor_s: float) -> np.ndarray:
    """Launches of fewer thread blocks than the device has SMs (CUs), and
    calls whose roofline time is under half the profile's floor."""
    return (grid_fill(blocks, multiprocessors) < 1) | too_small(roof_per_call, floor_s)


def grid_fill(blocks: np.ndarray, multiprocessors: int | None) -> np.ndarray:
    """The share of the SMs (CUs) a launch of fewer blocks than the device
    has keeps busy: its roof is that share of the device's (1 for a full
    grid, or where the launch or the SM count is not known)."""
    if not multiprocessors:
        return np.ones(len(blocks))
    short = np.isfinite(blocks) & (blocks >= 1) & (blocks < multiprocessors)
    return np.where(short, np.where(short, blocks, 1.0) / multiprocessors, 1.0)


def wave_fill(blocks: np.ndarray, multiprocessors: int | None) -> np.ndarray:
    """The share of the SMs a launch of at least as many blocks as SMs keeps
    busy over its waves (1.2 waves leave 40 % idle in the last); 1 for a
    smaller launch (:func:`grid_fill` has it) or where either is not known."""
    if not multiprocessors:
        return np.ones(len(blocks))
    waves = np.isfinite(blocks) & (blocks >= multiprocessors)
    b = np.where(waves, blocks, 1.0)
    return np.where(waves, b / (np.ceil(b / multiprocessors) * multiprocessors), 1.0)


def device_floor(architecture) -> float:
    """A GPU's kernel floor observed on real traces
    (``architecture.kernel_floor_s``, roofline.devices.observed); NaN: none."""
    floor = (architecture or {}).get("kernel_floor_s")
    ok = isinstance(floor, (int, float)) and not isinstance(floor, bool) and math.isfinite(floor) and floor > 0
    return float(floor) if ok else math.nan


def too_small(roof_per_call: np.ndarray, floor_s: float) -> np.ndarray:
    """Calls whose roofline time is under half the floor: at the roof their
    work would be over before the least call is (item 3 of the module doc)."""
    if not math.isfinite(floor_s):
        return np.zeros(len(roof_per_call), dtype=bool)
    return np.isfinite(roof_per_call) & (roof_per_call > 0) & (roof_per_call < 0.5 * floor_s)
