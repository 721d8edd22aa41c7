"""Operators that do no work of their own: views and metadata changes
(the data stays where it is), allocations (an ``empty`` tensor is not
touched; ``zeros``/``ones``/``full``/``rand`` call a fill that is counted
there), and composites that only dispatch (``to``, ``contiguous``: when
they copy, the ``_to_copy``/``clone`` they call carries the work)."""
from __future__ import annotations

VIEWS = frozenset("""
view reshape _reshape_alias _unsafe_view t transpose transpose_ permute expand expand_as
as_strided as_strided_ squeeze squeeze_ unsqueeze unsqueeze_ select slice narrow split
split_with_sizes chunk unbind flatten unflatten view_as alias detach detach_ lift_fresh
resolve_conj resolve_neg _neg_view _conj conj real imag view_as_real view_as_complex diagonal
movedim moveaxis swapaxes swapdims numpy_T mT mH unfold _unsafe_split broadcast_to
broadcast_tensors to contiguous type_as empty empty_like empty_strided new_empty
new_empty_strided zeros zeros_like ones ones_like full full_like new_zeros new_ones new_full
scalar_tensor rand randn rand_like randn_like randint randperm arange linspace resize_ set_
result_type item _local_scalar_dense _has_compatible_shallow_copy_type is_nonzero size
stride numel dim is_same_size _shape_as_tensor lift record_stream _version
""".split())
