// Placeholder until the startup script lands (issue 25): replaced by the script itself.
export const DETACHED_STARTUP_SCRIPT = '#!/bin/bash\nexit 1\n'
