"""Recurrent layers on the CPU: oneDNN's ``mkldnn_rnn_layer`` (one layer,
one direction of ``torch.nn.LSTM``/``GRU``/``RNN``) and its backward.

FLOP: the gates' matrix products, from the recorded weights. Each of the
T x B steps multiplies the input by ``weight0`` ([G H, I]) and the hidden
state by ``weight1`` ([G H, H]), G gates (LSTM 4, GRU 3, RNN 1):
forward ``2 T B G H (I + H)``; backward ``2x`` that (grad input, grad
hidden state, and the two grad weights are one product each, of the
forward's size). The gates' element-wise work (bias, sigmoid/tanh, cell
update: about 20 FLOP per hidden unit and step for an LSTM, under 5 % of
the products once I + H >= 64) is not counted: matrix work only, as
torch's counter counts a ``linear``. Bytes: every recorded tensor read once
and each result written once (forward: output [T, B, H], h and c; backward:
grad input, grad weights and biases, grad h and c). The forward's training
workspace (the gates kept for the backward) is not in its recorded shapes
and is not counted there; the backward reads it (its last argument).
"""
from __future__ import annotations

from .call import Args, OpWork, dtype_precision, work

GATE_NOTE = ("gates' element-wise work (bias, sigmoid/tanh, cell update) not counted: "
             "the matrix products only")
WORKSPACE_NOTE = "training workspace written by the forward not in its recorded shapes: not counted"


def _steps_and_weights(args: Args, input_at: int, w_ih_at: int, w_hh_at: int):
    """(T x B, elements of the two weight matrices, dtype) of a layer call."""
    x, w_ih, w_hh = args.need(input_at), args.need(w_ih_at), args.need(w_hh_at)
    if len(x.shape) != 3 or len(w_ih.shape) != 2 or len(w_hh.shape) != 2:
        raise LookupError("recurrent layer: input [T, B, I] and 2-d weights expected")
    gates_h, i = w_ih.shape
    if w_hh.shape[0] != gates_h or x.shape[2] != i or w_hh.shape[1] == 0:
        raise LookupError(f"recurrent layer shapes disagree: {x.shape} {w_ih.shape} {w_hh.shape}")
    # batch_first or not, the first two dimensions are the T x B steps
    return x.shape[0] * x.shape[1], w_ih.numel + w_hh.numel, w_hh.shape[1], x.dtype


def rnn_layer(args: Args) -> OpWork:
    """``mkldnn_rnn_layer(input, weight0, weight1, weight2, weight3, hx_,
    cx_, reverse, batch_sizes, mode, hidden_size, num_layers, has_biases,
    bidirectional, batch_first, train)``."""
    steps, weights, hidden, dtype = _steps_and_weights(args, 0, 1, 2)
    reads = sum(args.stored_bytes(i) for i in args.tensor_positions())
    states = sum(args.need(i).nbytes for i in (5, 6) if args.tensor(i) is not None)
    out = steps * hidden * args.need(0).itemsize
    notes = (GATE_NOTE,) + ((WORKSPACE_NOTE,) if args.value(15) is True else ())
    return work({dtype_precision(dtype): 2 * steps * weights}, reads + out + states, "gemm",
                matrix=True, args=args, assumptions=notes)


def rnn_layer_backward(args: Args) -> OpWork:
    """``mkldnn_rnn_layer_backward(input, weight1, weight2, weight3,
    weight4, hx_, cx_tmp, output, hy_, cy_, grad_output, grad_hy, grad_cy,
    reverse, mode, hidden_size, num_layers, has_biases, train,
    bidirectional, batch_sizes, batch_first, workspace)``: returns grads of
    input, the four weights, hx and cx."""
    steps, weights, _, dtype = _steps_and_weights(args, 0, 1, 2)
    reads = sum(args.stored_bytes(i) for i in args.tensor_positions())
    writes = sum(args.need(i).nbytes for i in range(7) if args.tensor(i) is not None)
    return work({dtype_precision(dtype): 4 * steps * weights}, reads + writes, "gemm",
                matrix=True, args=args, assumptions=(GATE_NOTE,))


MODELS = {"mkldnn_rnn_layer": rnn_layer, "mkldnn_rnn_layer_backward": rnn_layer_backward}
