"""Why a kernel runs below its roof, as far as the profile can tell.

Every kernel below ``Rules.near_roof`` of its roof, and every overhead-bound
one, gets one reason: the first of these that its evidence supports.

================================ ===================================================
reason                           evidence
================================ ===================================================
``dispatch``                     a framework operator with no work of its own: its
                                 self time is the framework's (CPU traces)
``no work counted``              counters (or a kernels.csv) give the kernel neither
                                 FLOPs nor bytes: nothing of its time scales
``fixed cost``                   a fixed cost per call, fitted across the sizes of
                                 the same operator or kernel (or the profile's
                                 typical one), is at least half of the time the
                                 call loses against its roof; only a plausible
                                 fit counts (:mod:`.evidence`: no larger than the
                                 shortest call beyond the fit's scatter, on a CPU
                                 at most 10x the trace's element-wise operators'
                                 fixed cost)
``under-fills the device``       fewer thread blocks than the GPU has SMs
``random-number generation``     the operator draws random numbers (bernoulli_,
                                 native_dropout, uniform_, normal_, rand*, ...):
                                 its roof is its generator's rate, not memory
``page faults on fresh outputs`` a CPU operator writing a new output of 128 KiB
                                 or more (glibc's mmap threshold: the allocator
                                 may return it to the OS between calls) takes 4x
                                 or more the time per byte of the in-place
                                 operators of its family and shape in the trace
``slow library kernel``          the same operator at other shapes or layouts in
                                 the trace reaches 4x or more this row's share of
                                 its roof, in 3 calls or more, and this row loses
                                 more per call than any fixed cost (100 us)
``fewer threads than the roof``  a CPU operator ran on fewer threads than the
                                 cores the roof assumes
``data from cache``              modelled bytes moved faster than DRAM allows: the
                                 data came from the last-level cache, whose roof it
                                 is placed on (given at any efficiency)
``precision assumed``            fp32 matrix work on a GPU whose kernel name does not
                                 say whether it ran on the FFMA units or as TF32 on
                                 tensor cores: the roof is the fp32 one, an assumption
``traffic above compulsory``     modelled bytes are only the compulsory ones (each
                                 tensor read and written once); a bandwidth-bound
                                 kernel far below that roof, with none of the
                                 evidence above, likely moves more
``no evidence``                  below its roof, and nothing in the profile says why
``link latency``                 a collective whose latency (NCCL's latency model,
                                 :mod:`.comm`) is at least half of its time on the
                                 link roof: small messages (overhead-bound)
``above its roof``               more than 5 % above its roof, whatever else is
                                 known: the roof (another machine's, or measured
                                 busy) or the work (model, counters, level) is
                                 wrong for it
================================ ===================================================

The evidence of random-number generation, page faults and a slow library
kernel is read by :mod:`.causes`; what to do about each is in
:data:`REASON_FIXES`.

A kernel without work (bound ``unknown``) says why instead, as its
importer found it (``Kernel.why``; :data:`WITHOUT_WORK`, each with what to
do about it in :data:`FIXES`): launched before the profiler's CPU window,
no launching operator, no shapes recorded, a compiled graph without
shapes, a custom extension kernel, no model for its operator, a
collective without a size (or with no traffic), no link roof, replayed
from a CUDA graph whose capture the trace lacks, copies without a byte
count, an operator with shapes but no dtypes, a compiled CPU graph whose
own time is Inductor's C++ kernels, tensor lists recorded as ``[]``; else ``no time measured`` or ``no counters``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

(NONE, DISPATCH, NO_WORK, FIXED, UNDER_FILLED, FEWER_THREADS, FROM_CACHE, PRECISION, TRAFFIC,
 NO_EVIDENCE) = range(10)
REASONS = ("", "dispatch", "no work counted", "fixed cost", "under-fills the device",
           "fewer threads than the roof", "data from cache", "precision assumed", "traffic above compulsory",
           "no evidence", "link latency")
LATENCY = 10
# Named causes (codes after LATENCY, ahead of "traffic above compulsory" in
# precedence; the order of the codes is not the order of the rules).
RNG, PAGE_FAULTS, SLOW_KERNEL = 11, 12, 13
REASONS = REASONS + ("random-number generation", "page faults on fresh outputs", "slow library kernel")
# A point above its roof by more than this is impossible as placed: it says so
# whatever else its evidence shows (the roof or the work is wrong for it).
ABOVE_ROOF, ABOVE_ROOF_SHARE = 14, 1.05
REASONS = REASONS + ("above its roof",)
# What to do about a named cause.
REASON_FIXES = {
    "above its roof": (
        "no kernel beats its roof, so the roof or the work is wrong for this row: the profile may be another "
        "machine's (the banner says when the file names another CPU or GPU) or measured while the machine was "
        "busy (roofs too low: measure again when idle); the operator model or counters may count less work "
        "than ran; or its data came from a level nearer the cores than the one it is placed on"),
    "random-number generation": (
        "the roof of a random-number operator is its generator's rate (Philox or mt19937 integer work per "
        "number), which no memory roof shows: draw fewer numbers (dropout only where it regularises, a "
        "smaller p does not help), fuse the mask into its consumer (torch.compile generates it in the kernel "
        "that applies it), or drop dropout at evaluation (model.eval())"),
    "page faults on fresh outputs": (
        "the output is new memory the allocator got from the OS, mapped (and zeroed) page by page on first "
        "touch: keep freed memory in the process (glibc: MALLOC_MMAP_THRESHOLD_ and MALLOC_TRIM_THRESHOLD_ "
        "above the largest tensor, e.g. 1073741824; or preload jemalloc or tcmalloc), or write in place "
        "(torch.optim's foreach=True / fused=True, in-place ops, out= tensors reused across steps)"),
    "dispatch": (
        "the time is the framework's own work around its children (argument checks, allocation, dispatch): "
        "fewer, larger operators (fuse with torch.compile, batch small calls), or CUDA/HIP graphs on a GPU"),
    "fixed cost": (
        "each call pays a fixed cost (launch, dispatch, synchronisation) that is half or more of what it "
        "loses: fewer, larger calls (batch them, fuse neighbours with torch.compile), or CUDA/HIP graphs to "
        "replay launches without their CPU cost"),
    "under-fills the device": (
        "the launch has too little work to fill the device: batch calls together, fuse with neighbours, or "
        "give it more blocks (a smaller tile, split-K for a skinny GEMM)"),
    "fewer threads than the roof": (
        "it ran on fewer threads than the roof assumes: more intra-op threads (torch.set_num_threads) or "
        "larger inputs (PyTorch runs loops under 32,768 elements on one thread)"),
    "data from cache": (
        "its data came from a cache, not DRAM, and it is placed on that cache's roof: it is as fast as the "
        "data's home allows; keeping the working set cache-sized is what keeps it so"),
    "precision assumed": (
        "its fp32 matrix work is placed on the fp32 units because the trace does not say TF32 was allowed; "
        "with torch.backends.cuda.matmul.allow_tf32 = True (Ampere on) its roof is the TF32 tensor one"),
    "traffic above compulsory": (
        "its bytes are the compulsory ones (every input read once), so it likely moves more than counted: "
        "memory-traffic counters (the report's note names them for this device) show the real traffic; "
        "then look for re-reads (strided or broadcast access, a layout change between kernels)"),
    "link latency": (
        "the collective's per-message latency is half or more of its time: send fewer, larger messages "
        "(bucket gradients, coalesce collectives) or overlap it with compute"),
    "no work counted": (
        "the counters give it neither FLOPs nor bytes: collect the profiler's FLOP and byte counters (its "
        "roofline section) or supply work from a cost model"),
    "slow library kernel": (
        "the library runs this shape on a slower implementation than the peer named beside it: try another "
        "memory format (torch.channels_last), another dtype, a different backend (torch.backends.mkldnn "
        "flags, ONEDNN_VERBOSE=1 names the implementation), or a newer library"),
}
# Why a kernel has no work (codes after LATENCY, in this order), and the fix.
BEFORE_WINDOW = "launched before the CPU window"
NO_OPERATOR = "no launching operator"
NO_SHAPES = "no shapes recorded"
COMPILED = "compiled graph without shapes"
EXTENSION = "custom extension kernel"
NO_MODEL = "no model for the operator"
NO_SIZE = "collective without a size"
NO_TRAFFIC = "no traffic"
NO_LINK = "no link roof"
HELPER = "helper of a modelled operator"
NO_TIME = "no time measured"
NO_COUNTERS = "no counters"
GRAPH_REPLAY = "replayed from a CUDA graph"
NO_BYTES = "no byte count recorded"
NO_DTYPES = "no dtypes recorded"
INDUCTOR = "Inductor C++ kernels"
LIST_SHAPES = "tensor lists recorded without shapes"
ARGS_NOT_RECORDED = "model arguments not recorded"
FIXES = {
    BEFORE_WINDOW: ("its correlation id is below the first runtime call the trace holds: the launch happened "
                    "before the profiler's CPU activity began; start the profiler earlier (a warm-up step in "
                    "torch.profiler.schedule) so launches and kernels are both inside it"),
    NO_OPERATOR: ("no operator of the trace encloses its launch; profile with ProfilerActivity.CPU and "
                  "record_shapes=True so every launch has its operator"),
    NO_SHAPES: "its operator has no input shapes: record with torch.profiler.profile(record_shapes=True)",
    COMPILED: ("launched inside a compiled graph (CompiledFunction, Torch-Compiled Region) whose calls carry no "
               "shapes: a newer torch records Inductor's extern kernel calls with shapes, and "
               "TORCHINDUCTOR_BENCHMARK_KERNEL=1 (torch >= 2.9) writes kernel_flop/kernel_num_gb on every "
               "Triton launch"),
    EXTENSION: ("launched by a custom (non-ATen) operator, which has no cost model here; counters "
                "(Nsight Compute) give its work"),
    NO_MODEL: "its operator has no cost model yet: docs/pytorch.md lists the operators modelled",
    NO_SIZE: ("a communication kernel whose message size the trace does not record: a newer torch writes "
              "In/Out msg nelems, Group size and dtype on record_param_comms and on the kernel"),
    NO_TRAFFIC: "a collective of 0 elements or on a group of one rank: nothing crosses a link",
    NO_LINK: "the device profile names no links: give --network and a GPU profile with its scale-up link",
    HELPER: ("launched beside the main kernel of a modelled operator, which takes the operator's work (a bias "
             "copy, a layout transform)"),
    NO_TIME: "the profile has counters but no time for it: merge a trace of the same run (--merge)",
    NO_COUNTERS: "the profile has neither counters nor an operator model for it: collect FLOP and byte metrics",
    GRAPH_REPLAY: ("launched by cudaGraphLaunch/hipGraphLaunch, which replays kernels captured earlier: the "
                   "shapes are on the launches recorded during the capture, which this trace does not hold; "
                   "profile the capture too, or a step run without graphs (vLLM --enforce-eager, "
                   "torch.compile mode other than reduce-overhead)"),
    NO_DTYPES: ("its operator has shapes but no dtypes (an empty Input type: PyTorch before 1.10), and bytes and "
                "the precision's roof need them: record with a newer torch and record_shapes=True"),
    NO_BYTES: ("copies or sets whose events carry no byte count (no args.bytes, and no runtime call with "
               "their correlation names one): nothing sizes their traffic"),
    INDUCTOR: ("the compiled graph's own time runs Inductor's fused C++ kernels (cpp_fused_*), which the trace "
               "neither lists nor sizes: it is work, not dispatch; TORCH_COMPILE_DEBUG=1 writes them "
               "(output_code.py), and profiling the eager model sizes each operator"),
    LIST_SHAPES: ("a tensor-list argument (torch.optim's _fused_adamw_, _foreach_*) is recorded as [] with no "
                  "shapes even with record_shapes=True (torch 2.14), and no sibling list sizes it: the row's "
                  "'assumed' says what the model lacked; profile with foreach=False to see per-tensor ops"),
    ARGS_NOT_RECORDED: ("its operator has a cost model, but the trace records neither an argument the model "
                        "needs nor anything it can be read from (vllm::moe_forward's top-k and expert width, "
                        "read from its allocations when they are recorded; docs/pytorch.md, 'Serving "
                        "operators'): profile with record_shapes=True, or with the library's inner operators "
                        "(vLLM's fused_experts) on the path"),
}
WITHOUT_WORK = tuple(FIXES)
REASONS = REASONS + WITHOUT_WORK

# A modelled bandwidth-bound kernel below this share of its roof likely moves
# more than its compulsory bytes.
TRAFFIC_SHARE = 0.5


@dataclass(frozen=True)
class Evidence:
    """What is known of each row, as boolean columns (see the module doc)."""

    dispatch: np.ndarray
    no_work: np.ndarray
    fixed: np.ndarray            # a fixed cost is at least half of the time lost
    under_filled: np.ndarray
    fewer_threads: np.ndarray
    from_cache: np.ndarray
    precision_assumed: np.ndarray
    modelled_bandwidth: np.ndarray   # modelled bytes limit it
    latency: np.ndarray | None = None   # a collective whose link latency is most of its link time
    rng: np.ndarray | None = None        # a random-number operator (.causes)
    page_faults: np.ndarray | None = None   # a fresh output, slow per byte against in-place peers
    slow_kernel: np.ndarray | None = None   # a peer of the same operator far nearer its roof


def reasons(e: Evidence, below: np.ndarray, efficiency: np.ndarray, overhead: np.ndarray) -> np.ndarray:
    """Each row's reason code (an index into :data:`REASONS`): the first
    that applies, for rows below their roof or overhead-bound; rows placed
    on a cache by evidence say so whatever their efficiency."""
    n = len(below)
    out = np.full(n, NONE, dtype=np.int8)
    needs = below | overhead
    none = np.zeros(n, dtype=bool)
    # the named causes come before the roof's assumptions (threads, cache,
    # precision): each was measured against peers run on the same threads
    rules = (
        (LATENCY, e.latency if e.latency is not None else none),
        (DISPATCH, e.dispatch),
        (NO_WORK, e.no_work),
        (FIXED, e.fixed),
        (UNDER_FILLED, e.under_filled),
        (RNG, e.rng if e.rng is not None else none),
        (PAGE_FAULTS, e.page_faults if e.page_faults is not None else none),
        (SLOW_KERNEL, e.slow_kernel if e.slow_kernel is not None else none),
        (FEWER_THREADS, e.fewer_threads),
        (FROM_CACHE, e.from_cache),
        (PRECISION, e.precision_assumed),
        (TRAFFIC, e.modelled_bandwidth & (np.nan_to_num(efficiency) < TRAFFIC_SHARE)),
    )
    undecided = needs.copy()
    for code, mask in rules:
        hit = undecided & mask
        out[hit] = code
        undecided &= ~hit
    out[undecided] = NO_EVIDENCE
    out[~needs & e.from_cache] = FROM_CACHE
    out[np.nan_to_num(efficiency) > ABOVE_ROOF_SHARE] = ABOVE_ROOF
    return out


def without_work(whys: np.ndarray, time_s: np.ndarray) -> np.ndarray:
    """Reason codes for rows without work: the importer's ``why`` where it
    gave one, else ``no time measured`` (no time) or ``no counters``."""
    code = {w: REASONS.index(w) for w in WITHOUT_WORK}
    whys = np.asarray(whys, dtype=object)
    out = np.zeros(len(whys), dtype=np.int8)
    given = np.flatnonzero(whys != "")          # most rows have no why: only the others are looked up
    if len(given):
        out[given] = [code.get(w, 0) for w in whys[given].tolist()]
    out[(out == 0) & np.isnan(time_s)] = REASONS.index(NO_TIME)
    out[out == 0] = REASONS.index(NO_COUNTERS)
    return out
