// `anygpu report (--slurm-job ID | --pod UID | --container ID)`: a job's GPU-hours, mean busy,
// peak memory and joules per device from the exporter's journal (docs/report.md). Exit 0: the
// journal was read (a damaged one as far as it could be, with a warning); 2: bad input; 3: no
// journal of that job.
#include <cerrno>
#include <memory>

#include "cli/command.h"
#include "exporter/job_journal.h"
#include "exporter/job_journal_store.h"
#include "exporter/job_report.h"
#include "host/confined_writer.h"
#include "host/host_root.h"
#include "util/strings.h"

namespace anygpu::cli {

namespace {

struct ReportFlags {
  std::string slurm_job, pod, container;
  std::string journal_dir;  // empty: /var/lib/anygpu/jobs beneath --root
  bool epilog = false;
};

Result<exporter::JobKey> job_of_flags(const ReportFlags& f) {
  std::vector<exporter::JobKey> given;
  if (!f.slurm_job.empty()) given.push_back({"slurm", f.slurm_job});
  if (!f.pod.empty()) given.push_back({"pod", f.pod});
  if (!f.container.empty()) given.push_back({"container", f.container});
  if (given.size() != 1)
    return bad_input("report: name one job: --slurm-job ID, --pod UID or --container ID");
  if (!exporter::valid_job_id(given[0].id))
    return bad_input(cat({"report: '", escape_control(given[0].id),
                          "' is not a job id (1-128 of A-Z a-z 0-9 _ . -, not starting with .)"}));
  return given[0];
}

int report_job(const ReportFlags& f, const GlobalOptions& g) {
  auto job = job_of_flags(f);
  if (!job) return fail(job.error());
  auto dir_path = f.journal_dir;
  if (dir_path.empty()) {
    auto host = g.host_options();
    if (!host) return fail(host.error());
    dir_path = HostRoot(*host).outside(exporter::kDefaultJournalDir);
  }
  auto name = exporter::journal_file_name(*job);
  auto dir = ConfinedDir::open(dir_path, Confinement::no_symlinks, false);
  auto text =
      dir ? dir->read_file(name, exporter::kMaxJournalBytes + 1) : Result<std::string>(dir.error());
  if (!text) {
    if (text.error().sys_errno == ENOENT)
      return fail(host_error(cat({"no journal for ", job->kind, " ", job->id, " in ", dir_path,
                                  ": the exporter (--processes) never saw a process of it "
                                  "holding or allocated a device there"})));
    return fail(text.error());
  }
  auto parsed = exporter::parse_journal(*text);
  auto where = cat({dir_path, "/", name});
  std::vector<std::string> warnings;
  for (const auto& p : parsed.problems) warnings.push_back(cat({where, ": ", p}));
  report_warnings(g, warnings);
  if (parsed.record.job != *job)
    return fail(host_error(cat({where, ": not a journal of ", job->kind, " ", job->id,
                                " (the exporter sets a damaged one aside on its next scan)"})));
  if (f.epilog)
    print_text(exporter::job_report_epilog(parsed.record) + "\n");
  else if (g.json)
    print_json(g, exporter::job_report_json(parsed.record));
  else
    print_text(exporter::job_report_text(parsed.record));
  return kExitOk;
}

}  // namespace

Command report_command() {
  return {"report", "a job's GPU-hours, busy, memory and energy per device (exporter journal)",
          [](CLI::App& app) {
            auto f = std::make_shared<ReportFlags>();
            app.add_option("--slurm-job", f->slurm_job, "the Slurm job id")->type_name("ID");
            app.add_option("--pod", f->pod, "the Kubernetes pod uid")->type_name("UID");
            app.add_option("--container", f->container, "the container id")->type_name("ID");
            app.add_flag("--epilog", f->epilog,
                         "print the one-line summary a Slurm epilog stores (key=value pairs)");
            app.add_option("--journal-dir", f->journal_dir,
                           "where the exporter keeps its job journals (default "
                           "/var/lib/anygpu/jobs, beneath --root)")
                ->type_name("DIR");
            return [f](const GlobalOptions& g) { return report_job(*f, g); };
          }};
}

}  // namespace anygpu::cli
