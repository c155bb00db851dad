import {describe, expect, it} from 'vitest'

import {cacheImageDaemonSet, cacheKeyProblem, DEFAULT_CACHE_KEY} from '../../../src/core/incluster/cache-image.js'
import type {NodeSelectorRequirement} from '../../../src/core/manifests/k8s-types.js'
import {accelerator} from './cluster-shapes.js'

const IMAGE = 'us-docker.pkg.dev/test-project/repo/trainer@sha256:' + 'c'.repeat(64)

describe('cacheImageDaemonSet', () => {
  it('names the DaemonSet, its labels and its container after the cache key, and runs sleep inf in the image', () => {
    const ds = cacheImageDaemonSet({cacheKey: 'trainer-v2', image: IMAGE, accelerator: accelerator('v5p-16')})
    expect(ds.metadata).toEqual({name: 'trainer-v2', namespace: 'default', labels: {'k8s-app': 'trainer-v2'}})
    expect(ds.spec.selector.matchLabels).toEqual({'k8s-app': 'trainer-v2'})
    expect(ds.spec.template.metadata?.labels).toEqual({name: 'trainer-v2', 'k8s-app': 'trainer-v2'})
    expect(ds.spec.updateStrategy).toEqual({type: 'RollingUpdate'})
    expect(ds.spec.template.spec.containers).toEqual([{name: 'trainer-v2', image: IMAGE, command: ['sleep', 'inf']}])
    expect(ds.spec.template.spec.tolerations).toEqual([{operator: 'Exists'}])
  })

  it('its selector matches its own pods', () => {
    const ds = cacheImageDaemonSet({cacheKey: DEFAULT_CACHE_KEY, image: IMAGE, accelerator: accelerator('l4-1')})
    const podLabels = ds.spec.template.metadata?.labels ?? {}
    for (const [key, value] of Object.entries(ds.spec.selector.matchLabels)) expect(podLabels[key]).toBe(value)
  })

  it.each<{type: string; requirement: NodeSelectorRequirement}>([
    {type: 'v5litepod-256', requirement: {key: 'cloud.google.com/gke-tpu-accelerator', operator: 'Exists'}},
    {type: 'h100-80gb-8', requirement: {key: 'cloud.google.com/gke-accelerator', operator: 'Exists'}},
    {
      type: 'n2-standard-32-4',
      requirement: {key: 'cloud.google.com/gke-nodepool', operator: 'NotIn', values: ['default-pool']},
    },
  ])('$type: runs on the nodes where $requirement.key $requirement.operator', ({type, requirement}) => {
    const ds = cacheImageDaemonSet({cacheKey: DEFAULT_CACHE_KEY, image: IMAGE, accelerator: accelerator(type)})
    expect(ds.spec.template.spec.affinity).toEqual({
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [requirement]}]},
      },
    })
  })
})

describe('cacheKeyProblem', () => {
  it.each([DEFAULT_CACHE_KEY, 'a', 'trainer-v2', '0cache', 'x'.repeat(63)])('accepts %s', (key) => {
    expect(cacheKeyProblem(key)).toBeUndefined()
  })

  it.each([
    ['', /RFC 1123/],
    ['Trainer', /RFC 1123/],
    ['cache_key', /RFC 1123/],
    ['-cache', /RFC 1123/],
    ['cache-', /RFC 1123/],
    ['cache.key', /RFC 1123/],
    ['x'.repeat(64), /at most 63 characters \(it has 64\)/],
  ])('refuses %j', (key, problem) => {
    expect(cacheKeyProblem(key)).toMatch(problem)
  })
})
