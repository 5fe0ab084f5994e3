// Warnings about an effect that is valid but surely not what was meant, found
// once the model is derived, whatever the front-end: every emitter disabled,
// a looped path or rate that jumps at the seam or has keys never read, a
// sub-emitter whose max_particles holds no child.
#pragma once

#include "spritz/effect.h"

namespace spritz {

// Appends to fx.warnings (after derive()).
void lint(Effect& fx);

}  // namespace spritz
