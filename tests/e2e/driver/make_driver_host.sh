#!/bin/bash
# A copy of a fixture host that carries its vendor's user-space driver, as an installed driver
# lays it out: mock libraries with the vendor's sonames and versioned file names, soname links,
# an /etc/ld.so.cache written by `ldconfig -r`, a mock management tool, firmware; the fixture's
# device nodes become real character devices (the /dev/null numbers) when `--mknod` is given.
# Usage: make_driver_host.sh nvidia|ascend|hygon|thead FIXTURE_DIR DEST [--mknod]
# NVIDIA_USERSPACE_VERSION gives the NVIDIA libraries another version than the fixture's module
# (550.90.07), as a driver upgraded without a reboot leaves them.
set -eu
vendor=$1 fixture=$2 dest=$3 mknod=${4:-}
here=$(cd "$(dirname "$0")" && pwd)
cc=${CC:-cc}
cp -a "$fixture" "$dest"
if [ "$mknod" = --mknod ]; then
  find "$dest/dev" -type f | while read -r n; do rm -f "$n"; mknod -m 0666 "$n" c 1 3; done
fi

# lib DIR FILE SONAME ENTRY ANSWER: a shared object FILE in DIR with SONAME, and its link.
lib() {
  mkdir -p "$dest$1"
  "$cc" -shared -fPIC -O1 -o "$dest$1/$2" -Wl,-soname,"$3" "-DENTRY=$4" "-DANSWER=$5" \
    "$here/mock_driver_lib.c"
  [ "$2" = "$3" ] || ln -sf "$2" "$dest$1/$3"
}
# tool PATH TEXT: a management tool that prints TEXT.
tool() {
  mkdir -p "$(dirname "$dest$1")"
  printf '#!/bin/sh\necho "%s"\n' "$2" >"$dest$1"
  chmod 755 "$dest$1"
}

multiarch=/usr/lib/x86_64-linux-gnu
case $vendor in
  nvidia)
    v=${NVIDIA_USERSPACE_VERSION:-550.90.07}
    lib $multiarch libcuda.so.$v libcuda.so.1 cuDriverGetVersion 12040
    lib $multiarch libnvidia-ml.so.$v libnvidia-ml.so.1 nvmlDeviceGetCount_v2 8
    lib $multiarch libnvidia-ptxjitcompiler.so.$v libnvidia-ptxjitcompiler.so.1 nvPTXCompilerGetVersion 1
    ln -sf libcuda.so.1 "$dest$multiarch/libcuda.so"  # the development link: not a driver file
    tool /usr/bin/nvidia-smi "NVIDIA-SMI $v (mock)"
    mkdir -p "$dest/lib/firmware/nvidia/$v"
    printf 'gsp' >"$dest/lib/firmware/nvidia/$v/gsp_ga10x.bin"
    printf 'gsp' >"$dest/lib/firmware/nvidia/$v/gsp_tu10x.bin"
    mkdir -p "$dest/run/nvidia-persistenced"
    : >"$dest/run/nvidia-persistenced/socket"
    ;;
  ascend)
    lib /usr/local/dcmi libdcmi.so libdcmi.so dcmi_get_card_num_list 8
    lib /usr/local/Ascend/driver/lib64/driver libascend_hal.so libascend_hal.so halGetDeviceInfo 1
    mkdir -p "$dest/usr/local/Ascend/driver/include"
    tool /usr/local/bin/npu-smi "npu-smi 24.1.rc2 (mock)"
    printf 'Driver_Install_Path_Param=/usr/local/Ascend\n' >"$dest/etc/ascend_install.info"
    ;;
  hygon)
    lib /opt/hyhal/lib librocm_smi64.so.2.0 librocm_smi64.so.2 rsmi_num_monitor_devices 2
    tool /opt/hyhal/bin/hy-smi "hy-smi (mock)"
    ;;
  thead)
    lib /usr/local/PPU_SDK/lib libhgml.so libhgml.so hgmlDeviceGetCount 4
    tool /usr/bin/ppu-smi "ppu-smi (mock)"
    ;;
  *) echo "make_driver_host.sh: unknown vendor $vendor" >&2; exit 2 ;;
esac
# The host loader's view: the multiarch directory and whatever the vendor put in ld.so.conf.d.
mkdir -p "$dest/etc/ld.so.conf.d"
printf 'include /etc/ld.so.conf.d/*.conf\n' >"$dest/etc/ld.so.conf"
printf '%s\n' $multiarch >"$dest/etc/ld.so.conf.d/x86_64-linux-gnu.conf"
[ "$vendor" = hygon ] && printf '/opt/hyhal/lib\n' >"$dest/etc/ld.so.conf.d/hyhal.conf"
ldconfig -r "$dest"
