// tessera backends: the plugins found in the search path, their devices and
// kernels, and the files that were refused with the reason. Each file is loaded in a
// child process first, so one that crashes is listed as refused, not fatal.
#include <cstdio>

#include "core/plugin/plugin_host.h"
#include "core/plugin/plugin_listing.h"
#include "tools/tessera/commands.h"
#include "tools/tessera/options.h"

namespace tessera::cli {

int run_backends(const Args& args) {
  std::string plugin_dir;
  OptionTable t("backends", "[--plugin-dir DIR]",
                "Lists the backend plugins found (search order: --plugin-dir, $TESSERA_PLUGIN_PATH,\n"
                "<exe>/../lib/tessera, the install directory), their devices and kernels.");
  t.text("--plugin-dir", "DIR", "extra directory searched first", &plugin_dir);
  const auto positional = t.parse(args);
  if (t.help_requested()) {
    std::printf("%s", t.help_text().c_str());
    return 0;
  }
  if (!positional.empty()) throw UsageError{"unexpected argument '" + positional[0] + "'"};
  PluginHost host(PluginHost::default_search_dirs(plugin_dir), PluginLoadPolicy{.probe_first = true});
  std::printf("%s", describe_plugins(host).c_str());
  return host.plugins().empty() ? 1 : 0;
}

}  // namespace tessera::cli
