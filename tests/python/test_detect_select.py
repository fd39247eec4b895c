"""detect() and select() through ctypes agree with the CLI on every fixture host; error
documents become typed exceptions; a selection `anygpu run` exported is used as it is."""
import json
import os
import shutil
import subprocess

import pytest

import anygpu
from conftest import BINARY, HOSTS, clean_env, host, run_python

FIXTURES = sorted(d for d in os.listdir(HOSTS) if os.path.isdir(os.path.join(HOSTS, d)))


def cli_json(*args, **env):
    proc = subprocess.run([BINARY, *args], env=clean_env(**env), capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_every_fixture_host_is_covered():
    assert {"h100-8x", "mi300x-8x", "ascend-910b-8x", "cloud-vm-none"} <= set(FIXTURES)


@pytest.mark.parametrize("name", FIXTURES)
def test_detect_matches_the_cli(isolated, name):
    doc = anygpu.detect(root=host(name), no_libs=True)
    assert doc == cli_json("--root", host(name), "--no-libs", "detect", "--json")
    assert doc["schema"] == "anygpu.inventory/v1"


def test_detect_on_h100_fixture_facts(isolated):
    doc = anygpu.detect(root=host("h100-8x"), no_libs=True)
    nvidia = [d for d in doc["devices"] if d["vendor"] == "nvidia"]
    assert [d["index"] for d in nvidia] == list(range(8))
    assert all(d["arch"] == "sm_90" for d in nvidia)
    assert [d["pci"]["bus_id"] for d in nvidia] == sorted(d["pci"]["bus_id"] for d in nvidia)


def test_environment_root_and_no_libs_apply(isolated):
    isolated.setenv("ANYGPU_ROOT", host("mi300x-8x"))
    isolated.setenv("ANYGPU_NO_LIBS", "1")
    assert anygpu.detect() == anygpu.detect(root=host("mi300x-8x"), no_libs=True)
    assert {d["vendor"] for d in anygpu.detect()["devices"]} == {"amd"}


@pytest.mark.parametrize("name,vendor,device", [
    ("h100-8x", "nvidia", "cuda"), ("mi300x-8x", "amd", "cuda"),
    ("ascend-910b-8x", "ascend", "npu"), ("cloud-vm-none", "cpu", "cpu")])
def test_select_matches_the_cli(isolated, name, vendor, device):
    sel = anygpu.select(root=host(name), no_libs=True)
    assert sel == cli_json("--root", host(name), "--no-libs", "select", "--format", "json")
    assert (sel["vendor"], sel["torch_device"]) == (vendor, device)


def test_select_with_config_and_nproc(isolated, tmp_path):
    cfg = tmp_path / "accelerator-config.yaml"
    cfg.write_text("backend: auto\ndevices: 2\n")
    sel = anygpu.select(cfg, nproc_per_node=2, root=host("h100-8x"), no_libs=True)
    assert len(sel["devices"]) == 2
    assert sel["env"]["CUDA_VISIBLE_DEVICES"] == "0,1"


def test_bad_config_is_bad_input_naming_the_file(isolated, tmp_path):
    cfg = tmp_path / "accelerator-config.yaml"
    cfg.write_text("backend: auto\nbogus_key: 1\n")
    with pytest.raises(anygpu.BadInputError) as e:
        anygpu.select(cfg, root=host("h100-8x"), no_libs=True)
    assert str(cfg) in str(e.value) and e.value.exit_code == 2
    assert isinstance(e.value, ValueError)


def test_backend_that_matches_nothing_is_a_host_error(isolated, tmp_path):
    cfg = tmp_path / "accelerator-config.yaml"
    cfg.write_text("backend: rocm\n")
    with pytest.raises(anygpu.HostError) as e:
        anygpu.select(cfg, root=host("h100-8x"), no_libs=True)
    assert e.value.exit_code == 3


def test_failed_runtime_contract_is_a_contract_error(isolated, tmp_path):
    spec = tmp_path / "runtime-spec.yaml"
    spec.write_text("required_features:\n  - device_count_min: 64\n")
    cfg = tmp_path / "accelerator-config.yaml"
    cfg.write_text(f"backend: auto\nruntime_contract: {spec}\n")
    with pytest.raises(anygpu.ContractError) as e:
        anygpu.select(cfg, root=host("h100-8x"), no_libs=True, python="/usr/bin/python3")
    assert e.value.exit_code == 1 and "failed" in str(e.value)


BROKEN = "sys/bus/pci/devices/0000:05:00.0/numa_node"
WARNING = f"/{BROKEN}: not text (NUL bytes)"


def corrupted_mi300x(tmp_path):
    root = shutil.copytree(host("mi300x-8x"), tmp_path / "host", symlinks=True)
    (root / BROKEN).write_bytes(b"x\0\0")
    return str(root)


def test_discovery_warnings_are_in_every_document_once(isolated, tmp_path):
    root = corrupted_mi300x(tmp_path)
    assert anygpu.detect(root=root, no_libs=True)["warnings"] == [WARNING]
    assert anygpu.select(root=root, no_libs=True)["warnings"] == [WARNING]
    assert anygpu.select(root=host("mi300x-8x"), no_libs=True)["warnings"] == []


def test_failed_selection_carries_discovery_warnings(isolated, tmp_path):
    root = corrupted_mi300x(tmp_path)
    cfg = tmp_path / "accelerator-config.yaml"
    cfg.write_text("backend: cuda\n")
    with pytest.raises(anygpu.HostError) as e:
        anygpu.select(cfg, root=root, no_libs=True)
    assert e.value.warnings == [WARNING]


@pytest.mark.parametrize("kwargs", [{"lib_timeout_ms": 0}, {"nproc_per_node": 0}])
def test_out_of_range_options_are_rejected(isolated, kwargs):
    with pytest.raises(anygpu.BadInputError):
        anygpu.select(root=host("h100-8x"), no_libs=True, **kwargs)


def test_malformed_no_libs_environment(isolated):
    isolated.setenv("ANYGPU_NO_LIBS", "maybe")
    with pytest.raises(anygpu.BadInputError) as e:
        anygpu.detect(root=host("h100-8x"))
    assert "ANYGPU_NO_LIBS" in str(e.value)


def test_exported_selection_is_used_without_probing(isolated, tmp_path):
    # An empty root: probing would find no device, so AMD devices can only come from the
    # exported selection (the root itself is still validated: test_host_options.py).
    isolated.setenv("ANYGPU_ROOT", str(tmp_path))
    for k, v in {"ANYGPU_VENDOR": "amd", "ANYGPU_BACKEND": "rocm", "ANYGPU_TORCH_DEVICE": "cuda",
                 "ANYGPU_DIST_BACKEND": "nccl", "ANYGPU_DEVICES": "0000:05:00.0,0000:26:00.0",
                 "ANYGPU_NUM_WORKERS": "12"}.items():
        isolated.setenv(k, v)
    sel = anygpu.select()
    assert sel["source"] == "environment"
    assert (sel["vendor"], sel["backend"], sel["torch_device"], sel["dist_backend"]) == (
        "amd", "rocm", "cuda", "nccl")
    assert sel["devices"] == ["0000:05:00.0", "0000:26:00.0"] and sel["num_workers"] == 12
    assert sel["warnings"] == []  # reported by the launcher that chose


@pytest.mark.parametrize("env,named", [
    ({"ANYGPU_VENDOR": "nvidia", "ANYGPU_TORCH_DEVICE": "hip"}, 'ANYGPU_TORCH_DEVICE="hip"'),
    ({"ANYGPU_VENDOR": "nvidia", "ANYGPU_TORCH_DEVICE": "cuda", "ANYGPU_NUM_WORKERS": "abc"},
     'ANYGPU_NUM_WORKERS="abc"'),
    ({"ANYGPU_VENDOR": "nvidia", "ANYGPU_TORCH_DEVICE": "cuda", "ANYGPU_NUM_WORKERS": "-3"},
     'ANYGPU_NUM_WORKERS="-3"'),
    ({"ANYGPU_VENDOR": "nvidia", "ANYGPU_TORCH_DEVICE": "cuda",
      "ANYGPU_NUM_WORKERS": "9" * 400}, "ANYGPU_NUM_WORKERS"),
    ({"ANYGPU_TORCH_DEVICE": "cuda"}, "ANYGPU_VENDOR"),
    ({"ANYGPU_VENDOR": "NV DIA; rm", "ANYGPU_TORCH_DEVICE": "cuda"}, "ANYGPU_VENDOR"),
    ({"ANYGPU_VENDOR": "nvidia", "ANYGPU_TORCH_DEVICE": "cuda", "ANYGPU_DIST_BACKEND": "n c"},
     "ANYGPU_DIST_BACKEND"),
])
def test_malformed_exported_selection(isolated, env, named):
    for k, v in env.items():
        isolated.setenv(k, v)
    with pytest.raises(anygpu.InvalidEnvironmentError) as e:
        anygpu.select()
    assert named in str(e.value)
    assert isinstance(e.value, ValueError)


def test_explicit_arguments_probe_even_with_an_exported_selection(isolated):
    isolated.setenv("ANYGPU_VENDOR", "amd")
    isolated.setenv("ANYGPU_TORCH_DEVICE", "cuda")
    assert anygpu.select(root=host("h100-8x"), no_libs=True)["vendor"] == "nvidia"


def test_documents_survive_many_calls_without_leaking():
    # 2000 calls through anygpu_free: a leak of one document per call would show in the RSS.
    out = run_python("""
import resource, anygpu
from conftest import host
r = host("h100-8x")
for _ in range(200): anygpu.detect(root=r, no_libs=True)
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
for _ in range(2000): anygpu.detect(root=r, no_libs=True)
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(after - before)
""", PYTHONPATH=os.pathsep.join([os.path.join(os.path.dirname(__file__), "..", "..", "python"),
                                 os.path.dirname(__file__)]), timeout=300)
    assert int(out.stdout) < 8 * 1024, f"max RSS grew by {out.stdout.strip()} KiB"
