// The instance a Filestore volume names (core/storage/delete-plan.ts filestoreInstanceOf), which `storage delete`
// deletes: the volume handle xpk and Python xpk write, and handles that name no instance.
import {describe, expect, it} from 'vitest'

import {filestoreInstanceOf} from '../../../src/core/storage/delete-plan.js'

describe('filestoreInstanceOf', () => {
  it.each([
    [
      'projects/p/locations/us-central1-a/instances/home-fs/volumes/vol1',
      {project: 'p', location: 'us-central1-a', id: 'home-fs'},
    ],
    ['projects/p/locations/us-central1/instances/fs', {project: 'p', location: 'us-central1', id: 'fs'}],
    ['my-bucket', undefined],
    ['projects/p/zones/us-central1-a/disks/d', undefined],
    ['modeInstance/us-central1-a/home-fs/vol1', undefined],
    [null, undefined],
  ])('%s', (handle, expected) => {
    expect(filestoreInstanceOf(handle)).toEqual(expected)
  })
})
