// Files for the command line, by concern: reading inputs, atomic writes,
// output names and stdout, and signals.
#pragma once

#include "io/atomic.h"
#include "io/inputs.h"
#include "io/outputs.h"
#include "io/signals.h"
