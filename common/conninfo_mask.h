// Moved to pg/conninfo_mask.h (issue 36). This forwarding header lets branches
// made before the move build until they are merged; remove it then.
#include "pg/conninfo_mask.h"
