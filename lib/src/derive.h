// What the model derives from an effect once it is read, whatever the front-end
// (docs/model.md 2, 4.2, 4.4, 9.2, 9.3): emitter seeds, the rate clamp and a
// looped effect's rounding, keyed rates prepared for counting, paths' periods,
// sub-emitter clamps and key spacing, and the draw order.
#pragma once

#include "spritz/effect.h"

namespace spritz {

void derive(Effect& fx);

}  // namespace spritz
