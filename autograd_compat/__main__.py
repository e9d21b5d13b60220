"""`python -m autograd_compat`: the founding examples, run and explained.

`python -m autograd_compat run script.py [args...]` runs an unchanged PyTorch script with
`torch` (and every `torch.*` submodule) resolved to autograd_compat; `run -m module` runs a
module the same way; `run --nproc N script.py` runs N processes of a torch.distributed job.
`python -m autograd_compat install-kernel` installs a Jupyter kernel that runs notebooks so.
"""

from __future__ import annotations

import sys

import autograd_compat as torch
from autograd_compat.autograd import Variable

from ._alias import RUN_USAGE, run
from ._kernel import main as install_kernel
from ._launch import launch, split_nproc

HELP = ("-h", "--help")
USAGE = """usage: python -m autograd_compat [demo]
       python -m autograd_compat run script.py [args...]
       python -m autograd_compat run -m module [args...]
       python -m autograd_compat run --nproc N script.py [args...]
       python -m autograd_compat install-kernel [--user | --prefix P | --sys-prefix]
                                                [--name N] [--display-name D]

With no command, run the founding autograd examples. `run` executes an unchanged PyTorch
script with `import torch` resolved to autograd_compat (even if PyTorch is installed);
with --nproc N it starts N local processes as `torchrun --nproc_per_node=N` does.
`install-kernel` installs a Jupyter kernel (ipykernel) whose notebooks run so: no cell added.
In IPython, `%load_ext autograd_compat` aliases torch in the running shell."""


def demo() -> None:
    print("Example 1: out = mean(3 * (x + 2)^2) over a 2x2 matrix of ones")
    x = Variable(torch.ones(2, 2), requires_grad=True)
    y = x + 2
    z = y * y * 3
    out = z.mean()
    print("  out =", out)
    out.backward()
    print("  x.grad =", x.grad)
    print("  d(out)/dx = 6 (x + 2) / 4 = 4.5 at x = 1\n")

    print("Example 2: y = x * 2^k, doubled until ||y|| >= 1000, backward with weights")
    x = Variable(torch.tensor([0.25, -0.5, 0.75]), requires_grad=True)
    y = x * 2
    while y.data.norm() < 1000:
        y = y * 2
    print("  y =", y)
    weights = torch.FloatTensor([0.1, 1.0, 0.0001])
    y.backward(weights)
    print("  x.grad =", x.grad)
    print(
        "  The weights w make backward compute d(sum_i w_i * y_i)/dx: the gradient of a "
        "weighted sum of three losses, one per element of y."
    )


def main(argv: list | None = None) -> int:
    """Dispatch the command line: demo (default), run, or help."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv or argv[0] == "demo":
        demo()
        return 0
    if argv[0] in (*HELP, "help"):
        print(USAGE)
        return 0
    if argv[0] == "run":
        nproc, rest = split_nproc(argv[1:])
        if rest and rest[0] in HELP:  # `run --help`, `run --nproc 2 -h`: no script named so
            print(RUN_USAGE)
            return 0
        if nproc is not None:
            return launch(nproc, rest)
        run(rest)
        return 0
    if argv[0] == "install-kernel":
        return install_kernel(argv[1:])
    print(f"autograd_compat: unknown command {argv[0]!r}\n\n{USAGE}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
