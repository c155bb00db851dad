import {afterAll} from 'vitest'

import {removeTempDirs} from './helpers/temp.js'

// Keep every test off Google's metadata server and away from the developer's real credentials and config.
process.env.METADATA_SERVER_DETECTION = 'none'
process.env.GCE_METADATA_HOST = '127.0.0.1:9'
process.env.GCE_METADATA_IP = '127.0.0.1:9'
delete process.env.GOOGLE_APPLICATION_CREDENTIALS
for (const key of Object.keys(process.env)) {
  if (key.startsWith('XPK_') || key.startsWith('CLOUDSDK_')) delete process.env[key]
}

afterAll(removeTempDirs)
