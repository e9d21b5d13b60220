"""The recurrent layers' maths: a whole multi-layer RNN/LSTM/GRU, and one cell step, each one
pure JAX function (a `lax.scan` over time) registered as one op per kind.

An LSTM layer's scan has its derivative written out (`_lstm_layer_jvp`): the tangent of the
recurrent weights enters every step through one matrix product over all steps, outside the
tangent's scan. Transposed (the backward), that is one product for the weights' gradient,
where the transpose of the plain scan adds a (4H, H) product into the gradient at every step
(about 18% of a 35-step layer's forward and backward). Values are the plain scan's.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
from jax import lax

from ..._pure.op import register
from ..._pure.row_sums import add_row, broadcast_rows

_HIGHEST = lax.Precision.HIGHEST


def _mm(x, w):
    return jnp.matmul(x, w.T, precision=_HIGHEST)


def _lstm_gates(xw, h, w_hh, b_hh):
    """One LSTM step's activated gates (i, f, g, o)."""
    gates = xw + _mm(h, w_hh)
    if b_hh is not None:
        gates = gates + b_hh
    i, f, g, o = jnp.split(gates, 4, axis=-1)
    return jax.nn.sigmoid(i), jax.nn.sigmoid(f), jnp.tanh(g), jax.nn.sigmoid(o)


def _cell(mode: str, nonlinearity: str):
    """The step function (carry, x_projected) -> (carry, h) of one recurrent cell."""

    def rnn_step(w_hh, b_hh):
        act = jnp.tanh if nonlinearity == "tanh" else jax.nn.relu

        def step(h, xw):
            pre = xw + _mm(h, w_hh)
            if b_hh is not None:
                pre = pre + b_hh
            h = act(pre)
            return h, h

        return step

    def lstm_step(w_hh, b_hh, w_hr=None):
        def step(carry, xw):
            h, c = carry
            i, f, g, o = _lstm_gates(xw, h, w_hh, b_hh)
            c = f * c + i * g
            h = o * jnp.tanh(c)
            if w_hr is not None:  # proj_size: h is projected to the smaller size
                h = _mm(h, w_hr)
            return (h, c), h

        return step

    def gru_step(w_hh, b_hh):
        def step(h, xw):
            gh = _mm(h, w_hh)
            if b_hh is not None:
                gh = gh + b_hh
            x_r, x_z, x_n = jnp.split(xw, 3, axis=-1)
            h_r, h_z, h_n = jnp.split(gh, 3, axis=-1)
            r = jax.nn.sigmoid(x_r + h_r)
            z = jax.nn.sigmoid(x_z + h_z)
            n = jnp.tanh(x_n + r * h_n)
            h = (1 - z) * n + z * h
            return h, h

        return step

    return {"RNN": rnn_step, "LSTM": lstm_step, "GRU": gru_step}[mode]


@functools.partial(jax.custom_jvp, nondiff_argnums=(5,))
def _lstm_layer(xw, h0, c0, w_hh, b_hh, reverse: bool):
    """One LSTM layer and direction over projected input `xw` (L, N, 4H): (outputs, h, c)."""
    (h, c), ys = lax.scan(_cell("LSTM", "tanh")(w_hh, b_hh), (h0, c0), xw, reverse=reverse)
    return ys, h, c


def _slope_of_logistic(tangent, s):
    """`tangent * s * (1 - s)`, written so that its transpose reads `s` alone (the gate is
    the pullback's residual, not its slope)."""
    scaled = tangent * s
    return scaled - scaled * s


@_lstm_layer.defjvp
def _lstm_layer_jvp(reverse, primals, tangents):
    xw, h0, c0, w_hh, b_hh = primals
    dxw, dh0, dc0, dw_hh, db_hh = tangents

    def step(carry, x):
        h, c = carry
        i, f, g, o = _lstm_gates(x, h, w_hh, b_hh)
        c_new = f * c + i * g
        t = jnp.tanh(c_new)
        h_new = o * t
        return (h_new, c_new), (h, c, i, f, g, o, t, h_new)

    (h, c), (h_prev, c_prev, i, f, g, o, t_all, ys) = lax.scan(step, (h0, c0), xw, reverse=reverse)
    # every step's part of the weights' tangent at once (its transpose: one product)
    d_in = dxw + jnp.matmul(h_prev, dw_hh.T, precision=_HIGHEST)
    if b_hh is not None:  # (the bias's gradient: a product with ones)
        d_in = d_in + broadcast_rows(db_hh, d_in.shape)

    # Linear in the tangents with the gates, the previous cell state and tanh of the new one
    # as its only factors: those (and h_prev) are all a backward saves, as PyTorch's does.
    def tangent_step(carry, inputs):
        dh, dc = carry
        d_x, c_before, i, f, g, o, t = inputs
        di, df, dg, do = jnp.split(d_x + _mm(dh, w_hh), 4, axis=-1)
        di, df, do = _slope_of_logistic(di, i), _slope_of_logistic(df, f), _slope_of_logistic(do, o)
        dg = dg - g * (g * dg)
        dc_new = df * c_before + f * dc + di * g + i * dg
        o_dc = o * dc_new
        dh_new = do * t + o_dc - t * (t * o_dc)
        return (dh_new, dc_new), dh_new

    inputs = (d_in, c_prev, i, f, g, o, t_all)
    (dh, dc), dys = lax.scan(tangent_step, (dh0, dc0), inputs, reverse=reverse)
    return (ys, h, c), (dys, dh, dc)


def _masked(step):
    """`step` over (x, valid) pairs: where a sequence has ended (valid False) its state is kept
    and its output is zero, so each sequence's final state is the one at its own length."""

    def run(carry, inputs):
        xw, valid = inputs
        new, y = step(carry, xw)
        keep = valid[:, None]
        new = jax.tree.map(lambda n, old: jnp.where(keep, n, old), new, carry)
        return new, jnp.where(keep, y, jnp.zeros_like(y))

    return run


def _rnn_fn(
    x,
    h0,
    *rest,
    mode,
    nonlinearity,
    num_layers,
    directions,
    has_bias,
    dropout_p,
    projected=False,
    packed=False,
):
    """Run all layers and directions over (L, N, H_in) input; (output, h_n[, c_n]).

    With `packed`, an int64 (N,) input of sequence lengths follows the initial states: steps
    past a sequence's length leave its state alone (a reversed direction starts at its end).
    With `projected` (LSTM proj_size), each direction's weights end with its projection W_hr.
    """
    rest = list(rest)
    c0 = rest.pop(0) if mode == "LSTM" else None
    valid = None
    if packed:
        lengths = rest.pop(0)
        valid = jnp.arange(x.shape[0])[:, None] < lengths[None, :]
    key = rest.pop() if dropout_p > 0 else None
    per = (4 if has_bias else 2) + int(projected)
    make_step = _cell(mode, nonlinearity)
    layer_input = x
    h_out, c_out = [], []
    for layer in range(num_layers):
        outputs = []
        for direction in range(directions):
            index = layer * directions + direction
            w_ih, w_hh, *biases = rest[index * per : (index + 1) * per]
            w_hr = biases.pop() if projected else None
            b_ih, b_hh = biases if biases else (None, None)
            xw = jnp.matmul(layer_input, w_ih.T, precision=_HIGHEST)
            if b_ih is not None:
                xw = add_row(xw, b_ih)
            carry = (h0[index], c0[index]) if mode == "LSTM" else h0[index]
            step = make_step(w_hh, b_hh) if w_hr is None else make_step(w_hh, b_hh, w_hr)
            if mode == "LSTM" and valid is None and w_hr is None:
                ys, *carry = _lstm_layer(xw, *carry, w_hh, b_hh, direction == 1)
            elif valid is None:
                carry, ys = lax.scan(step, carry, xw, reverse=direction == 1)
            else:
                carry, ys = lax.scan(_masked(step), carry, (xw, valid), reverse=direction == 1)
            outputs.append(ys)
            if mode == "LSTM":
                h_out.append(carry[0])
                c_out.append(carry[1])
            else:
                h_out.append(carry)
        layer_input = outputs[0] if directions == 1 else jnp.concatenate(outputs, axis=-1)
        if key is not None and layer < num_layers - 1:
            key, sub = jax.random.split(jax.random.wrap_key_data(key))
            key = jax.random.key_data(key)
            keep = jax.random.bernoulli(sub, 1.0 - dropout_p, layer_input.shape)
            scale = 0.0 if dropout_p >= 1 else 1.0 / (1.0 - dropout_p)
            layer_input = jnp.where(keep, layer_input * scale, 0).astype(layer_input.dtype)
    h_n = jnp.stack(h_out)
    if mode == "LSTM":
        return layer_input, h_n, jnp.stack(c_out)
    return layer_input, h_n


RNN_OPS = {
    "RNN": register("nn.rnn.rnn", _rnn_fn, node="StackBackward0"),
    "LSTM": register("nn.rnn.lstm", _rnn_fn, node="MkldnnRnnLayerBackward0", residuals="all"),
    "GRU": register("nn.rnn.gru", _rnn_fn, node="StackBackward0"),
}


def _cell_fn(x, h, *rest, mode, nonlinearity, has_bias):
    rest = list(rest)
    c = rest.pop(0) if mode == "LSTM" else None
    w_ih, w_hh, *biases = rest
    b_ih, b_hh = biases if biases else (None, None)
    xw = _mm(x, w_ih)
    if b_ih is not None:
        xw = xw + b_ih
    step = _cell(mode, nonlinearity)(w_hh, b_hh)
    if mode == "LSTM":
        (h, c), _ = step((h, c), xw)
        return h, c
    h, _ = step(h, xw)
    return h


CELL_OPS = {
    "RNN": register("nn.rnn_cell.rnn", _cell_fn, node="TanhBackward0"),
    "LSTM": register("nn.rnn_cell.lstm", _cell_fn, node="MulBackward0"),
    "GRU": register("nn.rnn_cell.gru", _cell_fn, node="AddBackward0"),
}
