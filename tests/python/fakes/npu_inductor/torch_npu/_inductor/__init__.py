"""Fake torch_npu._inductor: the newer torch_npu releases make inductor work on npu."""
