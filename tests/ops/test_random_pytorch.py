"""The generator against real PyTorch, bit for bit: the same seed (or the same saved state)
gives the same mt19937 state bytes and the same draws from every sampler, size class and
dtype, interleaved calls (the scalar normal's cached sample), Generator objects, layer
initialization, dropout masks and a shuffling DataLoader's order."""

from __future__ import annotations

import functools
import pickle

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import autograd_compat as torch
from autograd_compat._state import avx2_normal, draws

SEEDS = (0, 7, 2**32 + 5, -1)
SIZES = ((), (1,), (5,), (15,), (16,), (17,), (33,), (1000,), (3, 50))


def _numpy(x) -> np.ndarray:
    """A tensor of either library (or a list/number) as a numpy array."""
    return x.detach().numpy() if hasattr(x, "detach") else np.asarray(x)


def _draws(lib, program, seed: int = 3) -> list[np.ndarray]:
    lib.manual_seed(seed)
    return [_numpy(x) for x in program(lib)]


def _assert_same(real_torch, program, seed: int = 3) -> None:
    """`program(lib)` returns a list of tensors: equal in dtype, shape and every bit, and
    the generators end in the same state."""
    theirs = _draws(real_torch, program, seed)
    ours = _draws(torch, program, seed)
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        assert a.dtype == b.dtype and a.shape == b.shape, (a.dtype, b.dtype, a.shape, b.shape)
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(_numpy(torch.get_rng_state()), real_torch.get_rng_state().numpy())


@pytest.mark.parametrize("seed", SEEDS)
def test_seeding_gives_pytorchs_state_bytes(real_torch, seed):
    torch.manual_seed(seed)
    real_torch.manual_seed(seed)
    ours, theirs = torch.get_rng_state(), real_torch.get_rng_state()
    assert ours.dtype == torch.uint8 and tuple(ours.shape) == (5056,)
    np.testing.assert_array_equal(_numpy(ours), theirs.numpy())
    assert torch.initial_seed() == real_torch.initial_seed()


def test_raw_draws_are_pytorchs(real_torch):
    _assert_same(
        real_torch,
        lambda t: [
            t.empty(9, dtype=t.int64).random_(),
            t.empty(9, dtype=t.int32).random_(),
            t.empty(9).random_(),
            t.empty(9, dtype=t.float64).random_(),
            t.empty(9, dtype=t.bool).random_(),
            t.empty(9).random_(10),
            t.empty(9, dtype=t.int16).random_(-3, 10),
        ],
    )


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_rand_and_randn_in_every_size_class(real_torch, dtype):
    def program(t):
        d = getattr(t, dtype)
        out = []
        for size in SIZES:
            out += [t.rand(size, dtype=d), t.randn(size, dtype=d)]
        return out

    _assert_same(real_torch, program)


def test_reduced_precision_draws(real_torch):
    def program(t):
        out = []
        for d in (t.float16, t.bfloat16):
            for n in (5, 16, 20, 1000):
                out += [t.rand(n, dtype=d).float(), t.randn(n, dtype=d).float()]
                out.append(t.empty(n, dtype=d).uniform_(-2, 3).float())
        return out

    _assert_same(real_torch, program)


@pytest.mark.parametrize("contract", [True, False], ids=["contracted", "emulated"])
def test_large_fills_run_the_jitted_transform(real_torch, monkeypatch, contract):
    """From 512 blocks of 16 on, the float32 normal transform runs as one XLA program per
    chunk of 131,072 values (a last chunk padded): the same bits as the numpy path's, with
    the compiler's multiply-adds and with emulated ones (where the compiler's fail the
    check)."""
    if not contract:
        monkeypatch.setattr(avx2_normal, "_contracts_as_pytorch", lambda standard: False)
    else:
        assert avx2_normal._contracts_as_pytorch(True) and avx2_normal._contracts_as_pytorch(False)
    _assert_same(
        real_torch,
        lambda t: [
            t.randn(8192),
            t.randn(131072 + 16 * 3 + 5),
            t.empty(9000).normal_(0.5, 2.0),
            t.randn(8200, dtype=t.float16).float(),
        ],
    )


def test_the_contraction_check_sees_a_product_fused_into_the_wrong_add(monkeypatch):
    """Without the -0.0 that keeps a product's rounding, the compiler fuses other pairs than
    PyTorch's build (or none, on a machine without multiply-add): the check refuses it."""
    broken = functools.partial(avx2_normal.Arithmetic, jnp, lambda a, b, c: a * b + c)
    monkeypatch.setattr(avx2_normal, "contracting", lambda zero: broken(lambda p: p))

    def retraced(*args, contract):  # a function of its own: JAX's trace cache misses
        return avx2_normal._chunk_pure(*args, contract=contract)

    monkeypatch.setattr(avx2_normal, "_chunk", jax.jit(retraced, static_argnames="contract"))
    assert not avx2_normal._contracts_as_pytorch.__wrapped__(False)


def test_the_scalar_normal_caches_its_second_sample(real_torch):
    """Below 16 values each normal is one half of a Box-Muller pair; the other half is the
    next call's first value, and a fill of 16 or more leaves it cached."""
    _assert_same(
        real_torch,
        lambda t: [t.randn(3), t.randn(1), t.randn(20), t.randn(()), t.rand(2), t.randn(1)],
    )


def test_fills_with_parameters(real_torch):
    _assert_same(
        real_torch,
        lambda t: [
            t.empty(40).normal_(2.0, 0.5),
            t.empty(4).normal_(-1.0, 3.0),
            t.empty(200, dtype=t.float64).normal_(2.0, 0.3),  # times std plus mean: one fma
            t.empty(15, dtype=t.float64).normal_(-1.0, 3.0),
            t.normal(1.0, 2.0, (20,)),
            t.normal(t.ones(17), 2.0),
            t.normal(t.zeros(3), t.full((3,), 0.5)),
            t.normal(t.tensor(1.0), t.tensor(2.0)),  # 0-d: a numpy scalar on the host
            t.empty(100).uniform_(-0.3, 0.3),
            t.empty(30, dtype=t.float64).uniform_(1.0, 4.0),
            t.empty(30).exponential_(2.0),
            t.empty(30, dtype=t.float64).exponential_(),
        ],
    )


def test_integers_and_permutations(real_torch):
    _assert_same(
        real_torch,
        lambda t: [
            t.randint(-5, 10, (3, 7)),
            t.randint(0, 2**40, (9,)),
            t.randint(100, (9,), dtype=t.int32),
            t.randint_like(t.zeros(4), 3, 9),
            t.randperm(0),
            t.randperm(1),
            t.randperm(2),
            t.randperm(3),
            t.randperm(50),
            t.randperm(1000, dtype=t.int32),
            t.randperm(70001),  # 17-bit positions: 64-bit sort keys
        ],
    )


def test_large_randperm_runs_the_inside_out_shuffle(monkeypatch):
    """From 2**32 / 20 on PyTorch shuffles inside out with 64-bit draws (for i < n: i goes to
    z = draw % (i + 1), what z held to i): the vectorized pass against that loop, with the
    threshold lowered to reach it."""
    monkeypatch.setattr(draws, "_SMALL_RANDPERM", 0)
    for n in (2, 3, 17, 500):
        generator = torch.Generator().manual_seed(n)
        replay = generator.clone_state()
        order = list(range(n))
        for i in range(n):
            z = replay.random64() % (i + 1)
            order[i], order[z] = order[z], i
        np.testing.assert_array_equal(draws.randperm(generator, n), order)
        assert generator.random() == replay.random()


def test_bernoulli_number_and_tensor_probabilities(real_torch):
    """A number p compares 53-bit uniforms; a float32 tensor p 24-bit ones, float64 53."""
    _assert_same(
        real_torch,
        lambda t: [
            t.empty(100).bernoulli_(0.3),
            t.bernoulli(t.full((50,), 0.4)),
            t.bernoulli(t.full((50,), 0.4, dtype=t.float64)),
            t.bernoulli(t.ones(50), 0.3),
            t.empty(50).bernoulli_(t.full((50,), 0.4)),
        ],
    )


def test_multinomial_with_and_without_replacement(real_torch):
    def program(t):
        p = t.tensor([[0.1, 0.2, 0.3, 0.0, 0.4], [1.0, 1.0, 1.0, 1.0, 1.0]])
        return [
            t.multinomial(p, 20, replacement=True),
            t.multinomial(p, 3),
            t.multinomial(p[0], 1),
            t.multinomial(p.double(), 9, True),
            t.multinomial(t.rand(4, 300), 7),
        ]

    _assert_same(real_torch, program)


def test_generator_objects_keep_their_own_stream(real_torch):
    def program(t):
        g = t.Generator().manual_seed(11)
        first = t.randn(20, generator=g)
        middle = t.rand(3)
        state = g.get_state()
        after = t.randint(0, 5, (6,), generator=g)
        g.set_state(state)
        return [first, middle, after, t.randint(0, 5, (6,), generator=g), t.randn(2)]

    _assert_same(real_torch, program)


def test_state_saved_by_pytorch_restores_here_and_back(real_torch):
    real_torch.manual_seed(5)
    real_torch.rand(3)
    real_torch.randn(1)  # leaves a cached normal in the state
    state = real_torch.get_rng_state()
    torch.set_rng_state(torch.tensor(state.numpy()))
    np.testing.assert_array_equal(_numpy(torch.get_rng_state()), state.numpy())
    theirs = [real_torch.randn(1).numpy(), real_torch.rand(700).numpy()]
    ours = [_numpy(torch.randn(1)), _numpy(torch.rand(700))]  # 700: the engine regenerates
    for a, b in zip(ours, theirs):
        np.testing.assert_array_equal(a, b)
    real_torch.set_rng_state(real_torch.from_numpy(_numpy(torch.get_rng_state()).copy()))
    np.testing.assert_array_equal(_numpy(torch.randn(5)), real_torch.randn(5).numpy())


def test_state_errors_are_pytorchs(real_torch):
    for lib in (torch, real_torch):
        with pytest.raises(RuntimeError, match="CPUGeneratorImplState of size 5056 but found"):
            lib.set_rng_state(lib.zeros(10, dtype=lib.uint8))
        with pytest.raises(RuntimeError, match="Invalid mt19937 state"):
            lib.set_rng_state(lib.zeros(5056, dtype=lib.uint8))
        with pytest.raises(TypeError, match="RNG state must be a torch.ByteTensor"):
            lib.set_rng_state(lib.zeros(5056))


def test_layers_initialize_as_pytorchs(real_torch):
    def program(t):
        nn = t.nn
        layers = [
            nn.Linear(5, 3),
            nn.Conv2d(3, 4, 3),
            nn.Embedding(10, 4),
            nn.LSTM(3, 4),
            nn.TransformerEncoderLayer(8, 2, 16),
        ]
        out = [p for layer in layers for p in layer.parameters()]
        init = nn.init
        out.append(init.xavier_normal_(t.empty(40, 6)))
        out.append(init.trunc_normal_(t.empty(40, 6), std=0.02))
        out.append(init.trunc_normal_(t.empty(33), mean=1.0, a=1.5, b=3.0))
        out.append(init.sparse_(t.empty(10, 6), 0.3))
        return out

    _assert_same(real_torch, program)


def test_dropout_masks_are_pytorchs(real_torch):
    def program(t):
        F = t.nn.functional
        x = t.ones(20, requires_grad=True)
        y = F.dropout(x, 0.4)
        y.sum().backward()
        return [
            F.dropout(t.arange(1000.0).reshape(10, 100), 0.1),
            F.dropout(t.ones(10), 1.0),
            F.dropout(t.ones(50, dtype=t.float64), 0.7),
            t.nn.Dropout(0.25)(t.ones(4, 33)),
            F.dropout2d(t.ones(2, 3, 4, 4), 0.5),
            F.dropout1d(t.ones(2, 5, 4), 0.5),
            y,
            x.grad,
        ]

    _assert_same(real_torch, program)


def test_dataloader_shuffles_as_pytorch(real_torch):
    def program(t):
        data = t.utils.data
        dataset = data.TensorDataset(t.arange(50))
        out = []
        for _ in range(2):
            out += [b for (b,) in data.DataLoader(dataset, batch_size=8, shuffle=True)]
        sampler = data.RandomSampler(dataset, replacement=True, num_samples=40)
        out += [b for (b,) in data.DataLoader(dataset, batch_size=8, sampler=sampler)]
        g = t.Generator().manual_seed(3)
        out += [b for (b,) in data.DataLoader(dataset, batch_size=16, shuffle=True, generator=g)]
        part, _ = data.random_split(dataset, [30, 20], generator=t.Generator().manual_seed(1))
        out.append(list(part.indices))
        out.append(list(data.DistributedSampler(dataset, num_replicas=2, rank=0, seed=4)))
        return out

    _assert_same(real_torch, program)


def test_distributions_sample_pytorchs_values(real_torch):
    def program(t):
        d = t.distributions
        return [
            d.Normal(t.zeros(20), t.ones(20)).sample(),
            d.Normal(1.0, 2.0).rsample((5,)),
            d.Uniform(0.0, 3.0).sample((7,)),
            d.Bernoulli(probs=t.full((9,), 0.3)).sample(),
            d.Categorical(probs=t.tensor([0.2, 0.3, 0.5])).sample((10,)),
            d.MultivariateNormal(t.zeros(3), t.eye(3)).sample((4,)),
        ]

    _assert_same(real_torch, program)


def test_normal_with_tensor_arguments_has_pytorchs_zero_gradient(real_torch):
    def program(t):
        mean = t.tensor(np.linspace(-1.0, 1.0, 20, dtype=np.float32), requires_grad=True)
        std = t.full((20,), 0.7, requires_grad=True)
        samples = [t.normal(mean, std), t.normal(mean, 0.3), t.normal(0.2, std)]
        t.stack(samples).sum().backward()
        return [*samples, mean.grad, std.grad]

    _assert_same(real_torch, program)


def test_generators_clone_and_pickle_with_their_state():
    g = torch.Generator().manual_seed(3)
    torch.randn(3, generator=g)  # leaves a cached normal
    clone, unpickled = g.clone_state(), pickle.loads(pickle.dumps(g))
    assert str(unpickled.device) == "cpu" and unpickled.initial_seed() == 3
    expected = _numpy(torch.randn(5, generator=g))
    for other in (clone, unpickled):
        np.testing.assert_array_equal(_numpy(torch.randn(5, generator=other)), expected)
