package explain

import "github.com/satmon/satmon/internal/testutil"

var scale = testutil.Scale
