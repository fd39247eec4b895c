// `anygpu report`: a job's journal as GPU-hours, mean busy, peak memory and joules per device,
// as a table, a JSON document (anygpu.job-report/v1), or the one line a Slurm epilog stores
// (in AdminComment, the way jobstats does).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "exporter/job_journal.h"

namespace anygpu::exporter {

std::string job_report_text(const JobJournalRecord& record);
nlohmann::ordered_json job_report_json(const JobJournalRecord& record);
// "anygpu job=slurm/77 gpus=2 gpu_hours=0.33 busy=25.0% peak_memory_mib=4 energy_j=1200
// idle_gpus=1 idle_gpu_hours=0.17": space-separated key=value, no quotes; a figure no device
// had is left out.
std::string job_report_epilog(const JobJournalRecord& record);

}  // namespace anygpu::exporter
