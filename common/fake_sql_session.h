// Moved to testing/fake_sql_session.h (issue 36). This forwarding header
// lets branches made before the move build until they are merged; remove it
// then.
#include "testing/fake_sql_session.h"
