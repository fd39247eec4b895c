// The DCMI entry points (Huawei Ascend, libdcmi.so) the metrics sampler and the health reader
// call, declared here so no driver package is needed to build. Shared with the mock DCMI the
// tests build.
//
// Source: dcmi_interface_api.h as shipped with the Ascend driver and copied into public
// projects (MindX DL / ascend-common, npu-exporter); the prototypes and struct layouts below
// match those copies. Unit conventions that the header does not spell out are marked
// "unverified" and are also listed in docs/metrics.md.
#pragma once

namespace anygpu::dcmi {

inline constexpr int kOk = 0;
// "This chip does not support the call" (the code npu-exporter treats so; unverified in the
// header): a reader leaves the fact absent, quietly, as for NVML's NOT_SUPPORTED.
inline constexpr int kNotSupported = -8255;
// dcmi_get_device_utilization_rate input_type: 2 = AI Core (DCMI_UTILIZATION_RATE_AICORE in
// the header copies; unverified against a shipped driver).
inline constexpr int kUtilizationAiCore = 2;

struct HbmInfo {                    // struct dcmi_hbm_info
  unsigned long long memory_size;   // MB
  unsigned int freq;                // MHz
  unsigned long long memory_usage;  // MB
  int temp;                         // °C
  unsigned int bandwith_util_rate;  // %  (sic)
};

struct PcieInfoAll {  // struct dcmi_pcie_info_all (64 bytes)
  unsigned int venderid, subvenderid, deviceid, subdeviceid;
  int domain;
  unsigned int bdf_busid, bdf_deviceid, bdf_funcid;
  unsigned char reserve[32];
};
static_assert(sizeof(PcieInfoAll) == 64, "the header states dcmi_pcie_info_all is 64 bytes");

struct PcieInfo {  // struct dcmi_pcie_info (older drivers: no domain, field order differs)
  unsigned int deviceid, venderid, subvenderid, subdeviceid;
  unsigned int bdf_deviceid, bdf_busid, bdf_funcid;
};

// struct dcmi_proc_mem_info, and the calls below as declared in
// Ascend/mind-cluster@ec1f2f664cff4978711fd8e391059cab97b3be73
// component/ascend-common/devmanager/dcmi/dcmi_interface_api.h; its dcmi.go
// (DcGetDevProcessInfo) passes an array and reads the count the call writes back.
struct ProcMemInfo {
  int proc_id;
  unsigned long proc_mem_usage;  // bytes ("unit is byte" in the header)
};
// The array handed to dcmi_get_device_resource_info: the call writes up to its own maximum and
// the count; anygpu's array is larger than any maximum the public callers use.
inline constexpr int kMaxProcesses = 1024;

// struct dcmi_ecc_info and enum dcmi_device_type, from the same header. Which counts are since
// the driver loaded and which over the device's life is not stated there: the `total_` pair is
// read as the lifetime one (unverified), the next-isolated pages as isolations that wait for a
// reset (unverified).
struct EccInfo {
  int enable_flag;
  unsigned int single_bit_error_cnt;
  unsigned int double_bit_error_cnt;
  unsigned int total_single_bit_error_cnt;
  unsigned int total_double_bit_error_cnt;
  unsigned int single_bit_isolated_pages_cnt;
  unsigned int double_bit_isolated_pages_cnt;
  unsigned int single_bit_next_isolated_pages_cnt;
  unsigned int double_bit_next_isolated_pages_cnt;
};
inline constexpr int kDeviceTypeHbm = 2;  // DCMI_DEVICE_TYPE_HBM (DDR 0, SRAM 1, HBM 2, NPU 3)

using InitFn = int (*)();
// dcmi_get_card_list (DCMI v2 headers) / dcmi_get_card_num_list (older): same signature.
using CardListFn = int (*)(int* card_num, int* card_list, int list_len);
using DeviceNumFn = int (*)(int card_id, int* device_num);
using UtilizationFn = int (*)(int card_id, int device_id, int input_type, unsigned int* rate);
using TemperatureFn = int (*)(int card_id, int device_id, int* celsius);
// Power in units of 0.1 W (npu-exporter scales it by 0.1; unverified in the header).
using PowerFn = int (*)(int card_id, int device_id, int* power);
using HbmFn = int (*)(int card_id, int device_id, HbmInfo*);
using PcieAllFn = int (*)(int card_id, int device_id, PcieInfoAll*);
using PcieFn = int (*)(int card_id, int device_id, PcieInfo*);
// The device's alarm level: 0 healthy; 1, 2, 3 the minor, major and critical alarm levels of
// the header's fault-event severity (unverified against a shipped driver for this call).
using HealthFn = int (*)(int card_id, int device_id, unsigned int* health);
using ResourceInfoFn = int (*)(int card_id, int device_id, ProcMemInfo* procs, int* count);
using EccFn = int (*)(int card_id, int device_id, int device_type, EccInfo* info);
// The device's current fault codes: up to list_len of them, their number in *error_count.
using ErrorCodeFn = int (*)(int card_id, int device_id, int* error_count,
                            unsigned int* error_code_list, unsigned int list_len);

// dcmi_get_topo_info_by_device_id(card1, device1, card2, device2, int* topo_type): how two chips
// are joined. Prototype and answer values as declared in verylucky01/driver@
// 1643027b944fe760fe2028d7dd0559003be07be3 src/custom/include/dcmi_interface_api.h (a public
// copy of Ascend's driver sources; the unnamed DCMI_TOPO_TYPE_* enum); its implementation
// (src/custom/dev_prod/user/dcmi/…, same commit) answers only on 910B and 910_93 boards,
// answers "unknown" (DCMI_TOPO_TYPE_BUTT) with success when the driver's pair query fails, and
// "self" for one chip. Older copies end the enum at PIX with BUTT = 6 (gpustack's pydcmi), so 6
// and above 7 never count as HCCS here.
using TopoFn = int (*)(int card1, int device1, int card2, int device2, int* topo_type);
inline constexpr int kTopoSelf = 0;
inline constexpr int kTopoHccs = 3;     // DCMI_TOPO_TYPE_HCCS: a direct HCCS link
inline constexpr int kTopoHccsSw = 7;   // DCMI_TOPO_TYPE_HCCS_SW: HCCS through an HCCS switch
inline constexpr int kTopoUnknown = 9;  // DCMI_TOPO_TYPE_BUTT in the current header
inline constexpr int kTopoMax = 10;     // DCMI_TOPO_TYPE_MAX: no answer is at or above it

// vNPUs through dcmi_get_device_info(card, device, main_cmd, sub_cmd, void* buf,
// unsigned* size). The main command (DCMI_MAIN_CMD_VDEV_MNG = 52) and the structs below as
// declared in Ascend/mind-cluster@ec1f2f664cff4978711fd8e391059cab97b3be73
// component/ascend-common/devmanager/dcmi/dcmi_interface_api.h (dcmi_soc_total_resource,
// dcmi_vdev_query_stru); the sub-commands (DCMI_VMNG_SUB_CMD_GET_VDEV_RESOURCE = 0,
// …_GET_TOTAL_RESOURCE = 1) from the DCMI_VDEV_MNG_SUB_CMD enum of the driver copy above.
using DeviceInfoFn = int (*)(int card_id, int device_id, int main_cmd, unsigned sub_cmd, void* buf,
                             unsigned* size);
inline constexpr int kMainCmdVdevMng = 52;
inline constexpr unsigned kVdevSubCmdOne = 0;    // one vNPU's resources (vdev_id in, rest out)
inline constexpr unsigned kVdevSubCmdTotal = 1;  // the chip's vNPU ids and total resources
inline constexpr unsigned kMaxVdevs = 32;        // DCMI_SOC_SPLIT_MAX
// DCMI_VDEV_RES_NAME_LEN. The query's `name` is read as the template the vNPU was made from
// (dcmi_create_vdevice takes the template by name); unverified against a shipped driver.
inline constexpr unsigned kVdevNameLen = 16;

struct VdevBase {  // struct dcmi_base_resource
  unsigned long long token, token_max, task_timeout;
  unsigned int vfg_id;
  unsigned char vip_mode;
  unsigned char reserved[31];
};
struct VdevComputing {  // struct dcmi_computing_resource
  float aic, aiv;       // AI Cores and AI Vector cores
  unsigned short dsa, rtsq, acsq, cdqm, c_core, ffts, sdma, pcie_dma;
  unsigned long long memory_size;  // MB ("MB as unit" in the header)
  unsigned int event_id, notify_id, stream_id, model_id;
  unsigned short topic_schedule_aicpu, host_ctrl_cpu, host_aicpu, device_aicpu, topic_ctrl_cpu_slot;
  unsigned int vdev_aicore_utilization;
  unsigned long long vdev_memory_total, vdev_memory_free;
  unsigned char reserved[12];
};
struct VdevMedia {  // struct dcmi_media_resource
  float jpegd, jpege, vpc, vdec, pngd, venc;
  unsigned char reserved[32];
};
struct VdevQueryInfo {  // struct dcmi_vdev_query_info
  char name[kVdevNameLen];
  unsigned int status, is_container_used, vfid, vfg_id;
  unsigned long long container_id;
  VdevBase base;
  VdevComputing computing;
  VdevMedia media;
};
struct VdevQuery {  // struct dcmi_vdev_query_stru: the info is 8-aligned, after 4 bytes of padding
  unsigned int vdev_id;
  VdevQueryInfo info;
};
static_assert(sizeof(VdevBase) == 64 && sizeof(VdevComputing) == 96 && sizeof(VdevMedia) == 56,
              "the layouts the header's fields give on LP64");
static_assert(sizeof(VdevQuery) == 264, "dcmi_vdev_query_stru on LP64");
struct VdevTotal {  // struct dcmi_soc_total_resource
  unsigned int vdev_num;
  unsigned int vdev_id[kMaxVdevs];
  unsigned int vfg_num, vfg_bitmap;
  VdevBase base;
  VdevComputing computing;
  VdevMedia media;
};

}  // namespace anygpu::dcmi
