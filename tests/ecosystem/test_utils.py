"""The utility modules (checkpoint, custom ops, pytree, FLOP counting, profiler) in one PyTorch
training script, under the alias and on real PyTorch."""


def test_checkpointed_training_with_a_custom_op_flops_and_profile(both):
    ours = both("utils_training.py")
    assert ours["profiled"] == ["step", "aten::addmm"]
    assert ours["flops"]["Global"]["aten.addmm"] > 0
