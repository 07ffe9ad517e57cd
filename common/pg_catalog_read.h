// Moved to pg/pg_catalog_read.h (issue 36). This forwarding header lets
// branches made before the move build until they are merged; remove it then.
#include "pg/pg_catalog_read.h"
