"""The promise of examples/train.py: experiment code that names no vendor, device or
vendor library; anygpu.torch decides all of that."""
import os
import re

from conftest import REPO

VENDOR_WORDS = ["cuda", "cudnn", "hip", "rocm", "rccl", "xpu", "npu", "nvidia", "nvml", "amd",
                "intel", "oneapi", "ascend", "cann", "huawei", "musa", "mthreads", "mlu",
                "cambricon", "cncl", "hygon", "dcu", "hpu", "habana", "gaudi", "nccl", "hccl",
                "mccl", "xccl", "ccl", "gloo", "iluvatar", "metax", "enflame", "gcu", "kunlunxin",
                "mps"]
PATTERN = re.compile(r"(?<![a-z0-9])(" + "|".join(VENDOR_WORDS) + r")(?![a-z0-9])",
                     re.IGNORECASE)


def vendor_words(text: str):
    return sorted({m.group(0) for m in PATTERN.finditer(text)})


def test_the_word_list_catches_the_seed_mistakes():
    assert vendor_words("device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')"
                        ) == ["cuda"]
    assert vendor_words("dist.init_process_group('rccl'); torch.hip.set_device(0)"
                        ) == ["hip", "rccl"]
    assert vendor_words("with torch.cuda.amp.autocast(): ... # ROCm, NCCL_DEBUG") == [
        "NCCL", "ROCm", "cuda"]
    assert vendor_words("relationship chipset shipping camden") == []


def test_example_names_no_vendor():
    with open(os.path.join(REPO, "examples", "train.py"), encoding="utf-8") as f:
        text = f.read()
    assert "anygpu.torch" in text
    assert vendor_words(text) == []
