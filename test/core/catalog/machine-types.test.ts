// Issue 17: --default-pool-cpu-machine-type is checked offline (a CPU machine family and a Compute Engine name
// shape), so a cluster is not created only for GKE to refuse its default pool.
import {describe, expect, it} from 'vitest'

import {CPU_MACHINE_FAMILIES, machineTypeProblem} from '../../../src/core/catalog/machine-types.js'

describe('machineTypeProblem', () => {
  it.each([
    'e2-standard-16',
    'e2-medium',
    'e2-micro',
    'f1-micro',
    'n2-highmem-32',
    'n2d-highcpu-8',
    'c3-standard-22-lssd',
    'c4a-standard-4',
    'm3-ultramem-32',
    'n2-custom-8-16384',
    'n2-custom-8-16384-ext',
    'custom-4-8192',
    ...CPU_MACHINE_FAMILIES.filter((f) => f !== 'f1' && f !== 'g1').map((f) => `${f}-standard-4`),
  ])('%s is a machine type', (name) => {
    expect(machineTypeProblem(name)).toBeUndefined()
  })

  it.each([
    ['foo-bar', /is not a machine type/],
    ['foo-standard-8', /"foo", which is not a CPU family/],
    ['E2_STANDARD', /is not a machine type/],
    ['e2-standard', /is not a machine type/],
    ['e3-standard-16', /"e3".*did you mean/],
    ['ct5p-hightpu-4t', /is not a machine type|not a CPU family/],
    ['a3-highgpu-8g', /is not a machine type|not a CPU family/],
    ['n2-superfast-8', /class "superfast"/],
    ['n2-standard-0', /no vCPUs/],
    ['e2-standard-16; rm -rf /', /is not a machine type/],
    ['', /is not a machine type/],
  ])('%j is refused', (name, message) => {
    expect(machineTypeProblem(name)).toMatch(message)
  })
})
