// `anygpu image check IMAGE`: will this image's framework builds and GPU code run on this
// host's devices? Reads a docker/podman save archive or an OCI layout; never runs it.
#include "cli/command.h"
#include "image/facts_cache.h"
#include "image/image_read.h"
#include "imagefit/image_fit.h"
#include "registry/wheel_data.h"
#include "util/strings.h"

namespace anygpu::cli {

Command image_command() {
  return {"image", "judge a container image against this host's devices without running it",
          [](CLI::App& app) {
            app.require_subcommand(1);
            auto* check = app.add_subcommand(
                "check", "read IMAGE (save archive or OCI layout) and judge it per device");
            auto path = std::make_shared<std::string>();
            auto no_cache = std::make_shared<bool>(false);
            check->add_flag("--no-cache", *no_cache,
                            "read every layer, neither using nor filling the cache of what "
                            "images hold (by image id)");
            check
                ->add_option("image", *path,
                             "a docker/podman save archive, an OCI layout directory or tar")
                ->required()
                ->type_name("IMAGE");
            return [path, no_cache](const GlobalOptions& g) {
              std::string why;
              std::optional<image::FactsCache> cache;
              if (!*no_cache) {
                auto opened = image::FactsCache::open(&why);
                if (!opened) return fail(opened.error());
                cache = std::move(*opened);
                if (!cache) report(g, Diagnostic::note(cat({"image cache: ", why})));
              }
              auto image = image::read_image(*path, cache ? &*cache : nullptr);
              if (!image) return fail(image.error());
              report_warnings(g, image->warnings);
              report(g, Diagnostic::note(image::read_note(*image, cache ? &*cache : nullptr)));
              auto opts = g.host_options();
              if (!opts) return fail(opts.error());
              HostRoot host(*opts);
              auto inv = discover(g, host);
              auto fit = judge_image(*image, inv, wheel_data());
              g.json ? print_json(g, render_image_fit_json(fit))
                     : print_text(render_image_fit_text(fit));
              return fit.failed() ? kExitCheckFailed : kExitOk;
            };
          }};
}

}  // namespace anygpu::cli
