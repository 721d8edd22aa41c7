"""The Kineto reader's column helpers: distinct values found in one pass,
the distinct (operator name, call) pairs the models and dtypes are worked
out on, and the operator work gathered from them (#36: once per pair, not
once per operator)."""
from __future__ import annotations

import json
import pickle
import random

import numpy as np

from roofline.importers.kineto.columns import ODD, Ids, distinct, int_column
from roofline.importers.kineto.dtypes import call_dtype, call_dtypes, op_dtypes
from roofline.importers.kineto.geometry import Settled
from roofline.importers.kineto.op_columns import OpEvents
from roofline.importers.kineto.operators import _works
from roofline.ops import OpCall


def test_distinct_gives_first_positions_in_order_and_each_values_rank():
    starts, rank = distinct(iter(["b", "a", "b", "c", "a", "b"]), 6)
    assert starts.tolist() == [0, 1, 3]
    assert rank.tolist() == [0, 1, 0, 2, 1, 0]
    starts, rank = distinct(iter([]), 0)
    assert starts.tolist() == [] and rank.tolist() == []


def _mm_ops(names: list, call: list) -> OpEvents:
    """Operators with columns filled by hand: one distinct call, a 2x3 @ 3x4 fp32 product."""
    ops = OpEvents()
    ops.names += names
    ops.call += call
    ops.calls.append((b"[[2,3],[3,4]]", b'["float","float"]', None, None))
    return ops


def test_call_keys_pair_name_and_call_and_follow_grown_columns():
    ops = _mm_ops(["aten::mm", "aten::relu", "aten::mm", "aten::mm"], [0, 0, -1, 0])
    firsts, pair = ops.call_keys()
    assert firsts.tolist() == [0, 1, 2]                 # (mm, 0), (relu, 0), (mm, -1)
    assert pair.tolist() == [0, 1, 2, 0]
    ops.names.append("aten::relu")
    ops.call.append(-1)                                 # a merged half: the pairs are found again
    firsts, pair = ops.call_keys()
    assert firsts.tolist() == [0, 1, 2, 4]
    assert pair.tolist() == [0, 1, 2, 0, 3]


def test_operators_of_one_pair_share_one_work_and_a_settled_one_gets_its_own():
    ops = _mm_ops(["aten::mm", "aten::mm", "aten::mm", "aten::relu"], [0, 0, 0, -1])
    wider = OpCall("aten::mm", dims=((2, 3), (3, 8)), types=("float", "float"))
    distinct_works, which = _works(ops, {2: Settled(wider, "widened in a test")})
    assert which[0] == which[1] != which[2]
    assert which[3] == -1 and distinct_works[-1] is None         # relu without shapes: no model
    assert sum(distinct_works[which[0]].flops.values()) == 2 * 2 * 3 * 4
    assert sum(distinct_works[which[2]].flops.values()) == 2 * 2 * 3 * 8
    assert "widened in a test" in distinct_works[which[2]].assumptions


def test_op_dtypes_label_each_operator_from_its_pair():
    ops = _mm_ops(["aten::mm", "aten::relu", "aten::mm"], [0, -1, 0])
    labels = op_dtypes(ops)
    assert labels.tolist() == ["fp32", "", "fp32", ""]          # "" at the end: launches without an operator
    assert np.array_equal(op_dtypes(OpEvents()), np.array([""], dtype=object))


def test_calls_alike_in_what_their_label_says_share_one_label_worked_out_once():
    # call_dtypes works a label out once per (types, which arguments are tensors,
    # and a cast's name and concrete arguments): the same labels as call_dtype
    # of each call, on random calls with shapes, non-shapes, casts and odd values
    rng = random.Random(36)
    dims_choices = [[2, 3], [], [4], [-1, 2], [True, 2], [[2], [3]], [2.0], "x", None, [{"a": 1}], [0, 5]]
    types_choices = ["float", "c10::BFloat16", "c10::Half", "Scalar", "TensorList", "", "ScalarType", "int", 3]
    concrete_choices = ["", "5", "15", "6", "False", "[1, 2]", 7]
    ops = OpEvents()
    for _ in range(3000):
        size = rng.randrange(0, 4)
        dims = [rng.choice(dims_choices) for _ in range(size)] if rng.random() > 0.05 else "odd"
        types = [rng.choice(types_choices) for _ in range(rng.randrange(0, 4))]
        concrete = [rng.choice(concrete_choices) for _ in range(rng.randrange(0, 4))]
        key = (json.dumps(dims).encode(), json.dumps(types).encode(), None, json.dumps(concrete).encode())
        for name in rng.sample(["aten::to", "aten::_to_copy", "aten::copy_", "aten::add", "aten::mm"], 2):
            ops.names.append(name)                      # one call under two names: a cast's label is its own
            ops.call.append(ops.call_of(key))
    labels = call_dtypes(ops)
    assert len(labels) > 2000 and len(set(labels.values())) > 5
    for (name, c), label in labels.items():
        dims, types, _, concrete = ops.decoded(c)
        assert label == call_dtype(name, dims, types, concrete), (name, ops.calls[c])


def test_distinct_ints_agrees_with_distinct_by_table_and_by_sorting():
    from roofline.importers.kineto.columns import distinct_ints
    rng = np.random.default_rng(0)
    for span in (3, 100, 10 ** 12):                    # a table for the first two, a sort for the last
        for n in (0, 1, 7, 60):
            keys = rng.integers(-span, span, n)
            got, want = distinct_ints(keys), distinct(keys.tolist(), n)
            assert got[0].tolist() == want[0].tolist() and got[1].tolist() == want[1].tolist()


def test_runtime_calls_find_the_last_call_of_each_correlation_as_a_dict_does():
    from types import SimpleNamespace

    from roofline.importers.kineto.attribution import runtime_calls

    def by_dict(gpu):
        row = dict(zip(gpu.api_corr, range(len(gpu.api_corr))))
        row.pop(None, None)
        return [row.get(c, -1) for c in gpu.kernel_corr]

    rng = np.random.default_rng(1)
    odd = [None, 1.0, 2.5, "3", True, 2 ** 70]          # ids no int64 table holds: the dict's way
    for t in range(400):
        pool = [int(x) for x in rng.integers(-5, 40, 10)] + (odd if t % 3 == 0 else [])
        if t % 7 == 0:
            pool = [int(x) for x in rng.integers(0, 10 ** 15, 10)]   # ids too spread for a table
        gpu = SimpleNamespace(api_corr=[pool[i] for i in rng.integers(0, len(pool), int(rng.integers(0, 30)))],
                              kernel_corr=[pool[i] for i in rng.integers(0, len(pool), int(rng.integers(0, 30)))])
        assert runtime_calls(gpu).tolist() == by_dict(gpu)
    gpu = SimpleNamespace(api_corr=[5, 6, 5], kernel_corr=[5, 6, 7])   # id 5 twice: its last call
    assert runtime_calls(gpu).tolist() == [2, 1, -1]


def test_kernels_find_their_operator_by_external_id_as_the_dicts_do():
    """The sorted way (int64 columns, ODD where absent) gives what one dict
    of External ids and one of the calls' ids give, repeated ids too."""
    from types import SimpleNamespace

    from roofline.importers.kineto.attribution import _by_external_id, _by_external_id_dict

    rng = np.random.default_rng(2)

    def column(n: int, high: int) -> list:
        return [None if rng.random() < 0.3 else int(v) for v in rng.integers(0, high, n)]

    for t in range(300):
        high = 10 ** 15 if t % 5 == 0 else 12
        n_ops, n_kernels, n_api = (int(x) for x in rng.integers(0, 25, 3))
        gpu = SimpleNamespace(kernel_ext=Ids(column(n_kernels, high)), kernel_corr=Ids(column(n_kernels, high)),
                              api_corr=Ids(column(n_api, high)), api_ext_col=Ids(column(n_api, high)))
        ops = SimpleNamespace(external_id=Ids(column(n_ops, high)))
        unlinked = np.flatnonzero(rng.random(n_kernels) < 0.7)
        assert _by_external_id(gpu, ops, unlinked).tolist() == _by_external_id_dict(gpu, ops, unlinked.tolist())


def test_sorted_distinct_is_np_unique_with_its_inverse():
    from roofline.importers.kineto.columns import sorted_distinct
    rng = np.random.default_rng(2)
    for low, high, n in ((0, 5, 50), (0, 10 ** 9, 20), (-3, 4, 30), (0, 1, 0)):
        keys = rng.integers(low, high, n)
        values, inverse = sorted_distinct(keys)
        want_values, want_inverse = np.unique(keys, return_inverse=True)
        assert values.tolist() == want_values.tolist() and inverse.tolist() == want_inverse.ravel().tolist()


def test_distinct_values_agrees_with_distinct_on_ints_spread_ints_strings_and_mixtures():
    from roofline.importers.kineto.columns import distinct_values
    columns = [[7, 7, 3, 7, 3], [10 ** 15, 5, 10 ** 15], ["7", 7, "7"], [True, 1, 0, False, 2],
               [1.0, 1, 2], [None, 3, None], [2 ** 70, 1, 2 ** 70], []]
    for values in columns:
        got, want = distinct_values(values), distinct(values, len(values))
        assert got[0].tolist() == want[0].tolist() and got[1].tolist() == want[1].tolist(), values


def test_ids_read_as_the_list_they_replace_whatever_the_values():
    values = [7, None, "stream 7", 2 ** 70, -2 ** 63, 5.0, 2 ** 63 - 1, True, 0]
    ids = Ids(values)
    assert ids.tolist() == list(ids) == values and len(ids) == len(values)
    assert [ids[i] for i in range(len(values))] == values and ids[-1] == 0
    assert ids.ints() is None                       # not every row is a 64-bit integer
    grown = Ids([1, 2])
    grown += ids
    grown += np.array([3, ODD, 4])                   # the scanner's: ODD where absent
    grown.append("x")
    assert grown.tolist() == [1, 2] + values + [3, None, 4, "x"]
    again = pickle.loads(pickle.dumps(grown))
    assert again.tolist() == grown.tolist() and again.marked == grown.marked


def test_ids_of_integers_are_one_int64_array():
    ids = Ids([5, 6])
    ids += np.array([7], dtype=np.int64)
    assert int_column(ids).tolist() == [5, 6, 7] and ids.marked == 0
    ints = ids.ints()
    ids.append(8)                                    # the array handed out is a copy: the column still grows
    assert ints.tolist() == [5, 6, 7] and ids.tolist() == [5, 6, 7, 8]


def test_nearly_sorted_order_is_lexsort():
    from roofline.importers.kineto.columns import nearly_sorted_order

    rng = np.random.default_rng(3)
    for t in range(200):
        n = int(rng.integers(0, 60))
        primary = np.round(rng.random(n) * 5, 0 if t % 2 else 3)      # many equal times, or few
        if t % 3 == 0:
            primary = np.sort(primary)                                # in order already, as traces nearly are
        tie = rng.integers(-3, 3, n).astype(float)
        # a few groups, more than a few, far apart (past 16 bits), or close but across 2**15
        group = rng.integers(0, (3, 40, 3, 40)[t % 4], n) * (1, 1, 10 ** 6, 1)[t % 4] + (0, 0, 0, 2 ** 15 - 20)[t % 4]
        assert nearly_sorted_order(primary, tie, group).tolist() == np.lexsort((tie, primary, group)).tolist()
        assert nearly_sorted_order(primary, tie).tolist() == np.lexsort((tie, primary)).tolist()
        assert nearly_sorted_order(primary, None, group).tolist() == np.lexsort((primary, group)).tolist()
