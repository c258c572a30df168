// The sections of serve's option table declared outside serve_options.cpp, and the choices
// both files use. Each declares its section's options on `table`, bound to fields of `config`
// (both must outlive the table). Internal to app/: only serve_options.cpp calls them.
#pragma once

#include "app/option_table.h"
#include "app/serve_config.h"

namespace supportd::app {

extern const Choices<bool> kOnOff;  // on | off

void declare_tracing(OptionTable& table, ServeConfig& config);
void declare_anomaly(OptionTable& table, ServeConfig& config);
void declare_cluster(OptionTable& table, ServeConfig& config);
void declare_admin(OptionTable& table, ServeConfig& config);

}  // namespace supportd::app
