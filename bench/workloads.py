"""The benchmark's workloads: each written once as PyTorch code, and once as pure JAX.

A workload's PyTorch side is `torch_code(lib)`, run with `lib` = autograd_compat or torch. It
makes what PyTorch code makes once (modules, optimizers, persistent weights) and returns
`(step, compute)`:
- `compute(*tensors)`: the maths of one step: forward, backward and the optimizer update where
  there is one. This is what the compiled column wraps in `torch.compile`.
- `step(compute)`: one whole step as PyTorch code writes it: create the step's leaves
  (`lib.tensor(data, requires_grad=True)`, `lib.ones(...)`), call `compute`, and read the
  results to host (`.item()`, `.grad.numpy()`), so no asynchronous dispatch is left pending.

Its JAX side is `jax_code()`, which returns a step: one call of a `jax.jit`-ed
`jax.value_and_grad` (plus the SGD update `p - lr * g` inside the jitted function where the
workload has an optimizer), fed the same host data, with its results read with `.item()` and
`np.asarray(...)`: the calls the PyTorch code makes (JAX's `float(...)` costs ~9 us more a read).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

_RNG = np.random.default_rng(0)


def _normal(*shape, scale=1.0) -> np.ndarray:
    return (_RNG.standard_normal(shape) * scale).astype(np.float32)


@dataclass
class Workload:
    name: str
    torch_code: Callable[[Any], tuple[Callable, Callable]]
    jax_code: Callable[[], Callable[[], Any]]
    torch_target: bool  # compiled, one of the "≥ 4x faster than PyTorch eager" workloads
    compile_target: bool = True  # in the compiled/jit geomean (traceable as one program)


# ----------------------------------------------------------------------------- 1. seed
def seed_torch(lib):
    """The founding example: x = ones(2, 2), mean(3 (x + 2)^2), backward."""

    def compute(x):
        out = (3 * (x + 2) ** 2).mean()
        out.backward()
        return out

    def step(compute):
        x = lib.ones(2, 2, requires_grad=True)
        out = compute(x)
        return out.item(), x.grad.numpy()

    return step, compute


def seed_jax():
    value_and_grad = jax.jit(jax.value_and_grad(lambda x: (3 * (x + 2) ** 2).mean()))
    ones = np.ones((2, 2), np.float32)

    def step():
        out, g = value_and_grad(ones)
        return out.item(), np.asarray(g)

    return step


# ----------------------------------------------------------------------------- 2. chain
CHAIN_ROUNDS = 50  # (mul, add, sin, tanh) x 50 = 200 elementwise ops
CHAIN_DATA = _normal(16)


def chain_torch(lib):
    """200 elementwise ops on a 16-vector, sum, backward."""

    def compute(x):
        y = x
        for _ in range(CHAIN_ROUNDS):
            y = (y * 1.01 + 0.1).sin().tanh()
        out = y.sum()
        out.backward()
        return out

    def step(compute):
        x = lib.tensor(CHAIN_DATA, requires_grad=True)
        out = compute(x)
        return out.item(), x.grad.numpy()

    return step, compute


def chain_jax():
    def f(x):
        y = x
        for _ in range(CHAIN_ROUNDS):
            y = jnp.tanh(jnp.sin(y * 1.01 + 0.1))
        return y.sum()

    value_and_grad = jax.jit(jax.value_and_grad(f))

    def step():
        out, g = value_and_grad(CHAIN_DATA)
        return out.item(), np.asarray(g)

    return step


# ----------------------------------------------------------------------------- 2b. doubling loop
LOOP_DATA = np.array([0.3, -1.2, 0.8], np.float32)
LOOP_WEIGHTS = np.array([0.1, 1.0, 0.0001], np.float32)
LOOP_LIMIT = 1000  # the loop doubles y while its norm is below this


def loop_torch(lib):
    """The seed's doubling loop: y = 2x doubled while `y.data.norm() < 1000`, `y.backward(v)`:
    Python control flow on a tensor's value, read to host every iteration."""

    def compute(x, v):
        y = x * 2
        while y.data.norm() < LOOP_LIMIT:
            y = y * 2
        y.backward(v)
        return y

    def step(compute):
        x = lib.tensor(LOOP_DATA, requires_grad=True)
        y = compute(x, lib.tensor(LOOP_WEIGHTS))
        return y.detach().numpy(), x.grad.numpy()

    return step, compute


def loop_jax():
    def scale(x):
        """2^k, k the doublings the loop makes (its value is no function of x to derive)."""
        doubled = jax.lax.while_loop(
            lambda c: jnp.linalg.norm(c[0]) < LOOP_LIMIT,
            lambda c: (c[0] * 2, c[1] * 2),
            (x * 2, 2.0),
        )
        return jax.lax.stop_gradient(doubled[1])

    @jax.jit
    def run(x, v):
        y, vjp = jax.vjp(lambda x: x * scale(x), x)
        return y, vjp(v)[0]

    def step():
        y, g = run(LOOP_DATA, LOOP_WEIGHTS)
        return np.asarray(y), np.asarray(g)

    return step


# ----------------------------------------------------------------------------- 3. MLP + SGD
MLP_X = _normal(64, 784)
MLP_Y = _RNG.integers(0, 10, 64)
MLP_W1, MLP_B1 = _normal(256, 784, scale=0.03), _normal(256, scale=0.03)
MLP_W2, MLP_B2 = _normal(10, 256, scale=0.06), _normal(10, scale=0.06)
LR = 0.01


def mlp_torch(lib):
    """A 784 -> 256 -> 10 classifier: nn.Linear, ReLU, F.cross_entropy, optim.SGD."""
    model = lib.nn.Sequential(lib.nn.Linear(784, 256), lib.nn.ReLU(), lib.nn.Linear(256, 10))
    with lib.no_grad():
        for param, value in zip(model.parameters(), (MLP_W1, MLP_B1, MLP_W2, MLP_B2)):
            param.copy_(lib.tensor(value))
    opt = lib.optim.SGD(model.parameters(), lr=LR)

    def compute(x, y):
        opt.zero_grad()
        loss = lib.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss

    def step(compute):
        x, y = lib.tensor(MLP_X), lib.tensor(MLP_Y)
        loss = compute(x, y)
        return loss.item(), model[2].bias.detach().numpy()

    return step, compute


def mlp_jax():
    def loss_fn(params, x, y):
        w1, b1, w2, b2 = params
        logits = jnp.maximum(x @ w1.T + b1, 0) @ w2.T + b2
        logp = jax.nn.log_softmax(logits, axis=-1)
        return -jnp.take_along_axis(logp, y[:, None], axis=1).mean()

    @jax.jit
    def train(params, x, y):
        loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
        return loss, tuple(p - LR * g for p, g in zip(params, grads))

    params = tuple(jnp.asarray(a) for a in (MLP_W1, MLP_B1, MLP_W2, MLP_B2))

    def step():
        nonlocal params
        loss, params = train(params, MLP_X, MLP_Y)
        return loss.item(), np.asarray(params[3])

    return step


# ----------------------------------------------------------------------------- 4. matmuls
N = 1024
MM_X, MM_W1, MM_W2 = _normal(N, N), _normal(N, N, scale=N**-0.5), _normal(N, N, scale=N**-0.5)


def matmul_torch(lib):
    """sum(tanh(X @ W1) @ W2) with 1024 x 1024 float32 weights, backward (compute bound)."""
    x = lib.tensor(MM_X)
    w1 = lib.tensor(MM_W1, requires_grad=True)
    w2 = lib.tensor(MM_W2, requires_grad=True)

    def compute(x):
        w1.grad = None
        w2.grad = None
        out = ((x @ w1).tanh() @ w2).sum()
        out.backward()
        return out

    def step(compute):
        out = compute(x)
        return out.item(), w1.grad.numpy(), w2.grad.numpy()

    return step, compute


def matmul_jax():
    value_and_grad = jax.jit(jax.value_and_grad(lambda w, x: (jnp.tanh(x @ w[0]) @ w[1]).sum()))
    x, weights = jnp.asarray(MM_X), (jnp.asarray(MM_W1), jnp.asarray(MM_W2))

    def step():
        out, (g1, g2) = value_and_grad(weights, x)
        return out.item(), np.asarray(g1), np.asarray(g2)

    return step


# ----------------------------------------------------------------------------- 5. double backward
DB_DATA = _normal(1000)


def double_torch(lib):
    """autograd.grad(sum(sin(x) x^3), x, create_graph=True), then backward of the grad's sum."""

    def compute(x):
        (g,) = lib.autograd.grad((x.sin() * x**3).sum(), x, create_graph=True)
        out = g.sum()
        out.backward()
        return out

    def step(compute):
        x = lib.tensor(DB_DATA, requires_grad=True)
        out = compute(x)
        return out.item(), x.grad.numpy()

    return step, compute


def double_jax():
    def f(x):
        return jnp.sum(jnp.sin(x) * x**3)

    value_and_grad = jax.jit(jax.value_and_grad(lambda x: jnp.sum(jax.grad(f)(x))))

    def step():
        out, g = value_and_grad(DB_DATA)
        return out.item(), np.asarray(g)

    return step


# ----------------------------------------------------------------------------- 6. gradient penalty
GP_REAL, GP_FAKE, GP_ALPHA = _normal(32, 32), _normal(32, 32), _RNG.random((32, 1), np.float32)
GP_W1, GP_B1 = _normal(64, 32, scale=0.18), _normal(64, scale=0.18)
GP_W2, GP_B2 = _normal(1, 64, scale=0.12), _normal(1, scale=0.12)


def penalty_torch(lib):
    """WGAN-GP: a 32 -> 64 -> 1 critic's gradient penalty on a batch of 32, backward into it."""
    critic = lib.nn.Sequential(lib.nn.Linear(32, 64), lib.nn.Tanh(), lib.nn.Linear(64, 1))
    with lib.no_grad():
        for param, value in zip(critic.parameters(), (GP_W1, GP_B1, GP_W2, GP_B2)):
            param.copy_(lib.tensor(value))

    def compute(real, fake, alpha):
        critic.zero_grad()
        interp = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
        out = critic(interp)
        (g,) = lib.autograd.grad(out.sum(), interp, create_graph=True)
        penalty = ((g.norm(2, dim=1) - 1) ** 2).mean()
        penalty.backward()
        return penalty

    def step(compute):
        real, fake, alpha = lib.tensor(GP_REAL), lib.tensor(GP_FAKE), lib.tensor(GP_ALPHA)
        penalty = compute(real, fake, alpha)
        return penalty.item(), critic[0].weight.grad.numpy()

    return step, compute


def penalty_jax():
    def critic(params, x):
        w1, b1, w2, b2 = params
        return jnp.tanh(x @ w1.T + b1) @ w2.T + b2

    def penalty(params, real, fake, alpha):
        interp = alpha * real + (1 - alpha) * fake
        g = jax.grad(lambda x: critic(params, x).sum())(interp)
        return ((jnp.linalg.norm(g, axis=1) - 1) ** 2).mean()

    value_and_grad = jax.jit(jax.value_and_grad(penalty))
    params = tuple(jnp.asarray(a) for a in (GP_W1, GP_B1, GP_W2, GP_B2))

    def step():
        out, grads = value_and_grad(params, GP_REAL, GP_FAKE, GP_ALPHA)
        return out.item(), np.asarray(grads[0])

    return step


WORKLOADS = [
    Workload("seed example (2x2)", seed_torch, seed_jax, True),
    Workload("200-op elementwise chain (16)", chain_torch, chain_jax, True),
    Workload("seed doubling loop (3)", loop_torch, loop_jax, False, compile_target=False),
    Workload("MLP 64x784-256-10 + SGD", mlp_torch, mlp_jax, False),
    Workload("tanh(X@W1)@W2, 1024^2", matmul_torch, matmul_jax, False),
    Workload("double backward (1000)", double_torch, double_jax, True),
    Workload("WGAN-GP penalty 32-64-1", penalty_torch, penalty_jax, True),
]
