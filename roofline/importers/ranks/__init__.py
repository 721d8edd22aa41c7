"""A folder of per-rank traces of one job: which folders are that and which
are one profiler's run (:mod:`.rank_rule`), each rank read and summarised
in worker processes (:mod:`.rank_files`, :mod:`.rank_pool`) or on a
``dask.distributed`` cluster (:mod:`.rank_cluster`).

May import: ``roofline.core`` and the shared modules of
``roofline.importers`` (``read``: each rank file is read like any other).
"""
