// `anygpu image check IMAGE`: will this image's framework builds and GPU code run on this
// host's devices? Reads a docker/podman save archive or an OCI layout; never runs it.
#include "cli/command.h"
#include "image/image_read.h"
#include "imagefit/image_fit.h"
#include "registry/wheel_data.h"

namespace anygpu::cli {

Command image_command() {
  return {"image", "judge a container image against this host's devices without running it",
          [](CLI::App& app) {
            app.require_subcommand(1);
            auto* check = app.add_subcommand(
                "check", "read IMAGE (save archive or OCI layout) and judge it per device");
            auto path = std::make_shared<std::string>();
            check
                ->add_option("image", *path,
                             "a docker/podman save archive, an OCI layout directory or tar")
                ->required()
                ->type_name("IMAGE");
            return [path](const GlobalOptions& g) {
              auto image = image::read_image(*path);
              if (!image) return fail(image.error());
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
