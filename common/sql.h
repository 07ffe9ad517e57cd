// Moved (issue 36): the session seam to pg/sql.h, quoting to common/quote.h.
// This forwarding header lets branches made before the move build until
// they are merged; remove it then. A target that does not link pg (the
// planner) gets the quoting alone.
#include "common/quote.h"
#if __has_include("pg/sql.h")
#include "pg/sql.h"
#endif
