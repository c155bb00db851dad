import {describe, expect, it} from 'vitest'

import type {ReleaseComponent} from '../../../src/core/kube/release-manifest.js'
import {decideInstall, parseReleaseVersion} from '../../../src/core/incluster/install-decision.js'
import type {
  InstallAction,
  InstallDecisionOptions,
  ObservedController,
} from '../../../src/core/incluster/install-decision.js'

const KUEUE_IMAGE = 'registry.k8s.io/kueue/kueue'
const JOBSET_IMAGE = 'registry.k8s.io/jobset/jobset'

const deployment = (image: string, managedBy: string | null = null): ObservedController => ({
  installed: true,
  image,
  managedBy,
})

interface Case {
  readonly name: string
  readonly component: ReleaseComponent
  readonly observed: ObservedController
  readonly options?: InstallDecisionOptions
  readonly action: InstallAction
  readonly reason: string
}

describe('decideInstall', () => {
  it.each<Case>([
    {
      name: 'no Kueue',
      component: 'kueue',
      observed: {installed: false},
      action: 'install',
      reason: 'install Kueue v0.17.1',
    },
    {
      name: 'no JobSet',
      component: 'jobset',
      observed: {installed: false},
      action: 'install',
      reason: 'install JobSet v0.10.1',
    },
    {
      name: 'the same Kueue',
      component: 'kueue',
      observed: deployment(`${KUEUE_IMAGE}:v0.17.1`),
      action: 'skip',
      reason: 'skip: Kueue v0.17.1 already installed',
    },
    {
      name: 'the same Kueue, managed by Helm',
      component: 'kueue',
      observed: deployment(`${KUEUE_IMAGE}:v0.17.1`, 'Helm'),
      action: 'skip',
      reason: 'skip: Kueue v0.17.1 already installed',
    },
    {
      name: 'the same JobSet, tagged and pinned by digest',
      component: 'jobset',
      observed: deployment(`${JOBSET_IMAGE}:v0.10.1@sha256:${'a'.repeat(64)}`),
      action: 'skip',
      reason: 'skip: JobSet v0.10.1 already installed',
    },
    {
      name: 'an older JobSet',
      component: 'jobset',
      observed: deployment(`${JOBSET_IMAGE}:v0.9.0`),
      action: 'upgrade',
      reason: 'upgrade JobSet v0.9.0 -> v0.10.1',
    },
    {
      name: 'an older JobSet from a registry with a port',
      component: 'jobset',
      observed: deployment('mirror.example:5000/jobset/jobset:v0.8.1'),
      action: 'upgrade',
      reason: 'upgrade JobSet v0.8.1 -> v0.10.1',
    },
    {
      name: 'a Kueue older than wanted but past the breaking version',
      component: 'kueue',
      observed: deployment(`${KUEUE_IMAGE}:v0.15.0`),
      action: 'upgrade',
      reason: 'upgrade Kueue v0.15.0 -> v0.17.1',
    },
    {
      // A string comparison would call v0.9.0 newer than v0.17.1.
      name: 'Kueue v0.9.0, numerically older',
      component: 'kueue',
      observed: deployment(`${KUEUE_IMAGE}:v0.9.0`),
      action: 'breaking-upgrade',
      reason: 'upgrade Kueue v0.9.0 -> v0.17.1, deleting every Kueue object first',
    },
    {
      name: 'Kueue v0.14.9, just before the breaking version',
      component: 'kueue',
      observed: deployment(`${KUEUE_IMAGE}:v0.14.9`),
      action: 'breaking-upgrade',
      reason: 'upgrade Kueue v0.14.9 -> v0.17.1, deleting every Kueue object first',
    },
    {
      name: 'an old JobSet (JobSet has no breaking version)',
      component: 'jobset',
      observed: deployment(`${JOBSET_IMAGE}:v0.2.0`),
      action: 'upgrade',
      reason: 'upgrade JobSet v0.2.0 -> v0.10.1',
    },
    {
      name: 'a newer Kueue',
      component: 'kueue',
      observed: deployment(`${KUEUE_IMAGE}:v0.18.0`),
      action: 'leave-newer',
      reason: 'leave Kueue v0.18.0: newer than v0.17.1',
    },
    {
      name: 'a newer JobSet, numerically (v0.10.10)',
      component: 'jobset',
      observed: deployment(`${JOBSET_IMAGE}:v0.10.10`),
      action: 'leave-newer',
      reason: 'leave JobSet v0.10.10: newer than v0.10.1',
    },
    {
      name: 'an older Kueue managed by Helm',
      component: 'kueue',
      observed: deployment(`${KUEUE_IMAGE}:v0.16.0`, 'Helm'),
      action: 'leave-managed',
      reason: 'leave Kueue v0.16.0: managed by Helm',
    },
    {
      name: 'a pre-v1beta2 Kueue managed by an operator (not deleted)',
      component: 'kueue',
      observed: deployment(`${KUEUE_IMAGE}:v0.12.2`, 'kueue-operator'),
      action: 'leave-managed',
      reason: 'leave Kueue v0.12.2: managed by kueue-operator',
    },
    {
      name: 'an empty managed-by label (not managed)',
      component: 'jobset',
      observed: deployment(`${JOBSET_IMAGE}:v0.9.0`, ''),
      action: 'upgrade',
      reason: 'upgrade JobSet v0.9.0 -> v0.10.1',
    },
    {
      name: 'a Kueue pinned by digest only',
      component: 'kueue',
      observed: deployment(`${KUEUE_IMAGE}@sha256:${'b'.repeat(64)}`),
      action: 'leave-unparseable',
      reason: `leave Kueue as it is: its image ${KUEUE_IMAGE}@sha256:${'b'.repeat(64)} names no version`,
    },
    {
      name: 'a JobSet with a custom tag',
      component: 'jobset',
      observed: deployment(`${JOBSET_IMAGE}:main-2024`),
      action: 'leave-unparseable',
      reason: `leave JobSet as it is: its image ${JOBSET_IMAGE}:main-2024 names no version`,
    },
    {
      name: 'a Kueue release candidate',
      component: 'kueue',
      observed: deployment(`${KUEUE_IMAGE}:v0.18.0-rc.1`),
      action: 'leave-unparseable',
      reason: `leave Kueue as it is: its image ${KUEUE_IMAGE}:v0.18.0-rc.1 names no version`,
    },
    {
      name: 'an untagged image',
      component: 'kueue',
      observed: deployment('mirror.example:5000/kueue'),
      action: 'leave-unparseable',
      reason: 'leave Kueue as it is: its image mirror.example:5000/kueue names no version',
    },
    {
      name: 'another wanted version',
      component: 'kueue',
      observed: deployment(`${KUEUE_IMAGE}:v0.17.1`),
      options: {wanted: 'v0.18.2'},
      action: 'upgrade',
      reason: 'upgrade Kueue v0.17.1 -> v0.18.2',
    },
    {
      name: 'a breaking version given for JobSet',
      component: 'jobset',
      observed: deployment(`${JOBSET_IMAGE}:v0.5.0`),
      options: {breakingVersion: 'v0.6.0'},
      action: 'breaking-upgrade',
      reason: 'upgrade JobSet v0.5.0 -> v0.10.1, deleting every JobSet object first',
    },
    {
      name: 'no breaking version for Kueue',
      component: 'kueue',
      observed: deployment(`${KUEUE_IMAGE}:v0.9.0`),
      options: {breakingVersion: null},
      action: 'upgrade',
      reason: 'upgrade Kueue v0.9.0 -> v0.17.1',
    },
  ])('$name: $action', (c) => {
    const decision = decideInstall(c.component, c.observed, c.options)
    expect(decision.action).toBe(c.action)
    expect(decision.reason).toBe(c.reason)
    expect(decision.component).toBe(c.component)
  })

  it('a note says why a controller is left alone, naming its manager', () => {
    const decision = decideInstall('kueue', deployment(`${KUEUE_IMAGE}:v0.16.0`, 'Helm'))
    expect(decision).toMatchObject({action: 'leave-managed', manager: 'Helm', installed: 'v0.16.0'})
    expect('note' in decision && decision.note).toContain('upgrade it to v0.17.1 with Helm')
  })

  it('a breaking Kueue upgrade lists, in order, the objects and CRD of each Kueue CRD, then the controller', () => {
    const decision = decideInstall('kueue', deployment(`${KUEUE_IMAGE}:v0.12.2`), {
      crds: [
        'clusterqueues.kueue.x-k8s.io',
        'jobsets.jobset.x-k8s.io',
        'workloads.kueue.x-k8s.io',
        'kueue.example.com',
      ],
    })
    expect(decision.action === 'breaking-upgrade' && decision.deletions).toEqual([
      {kind: 'all-objects-of-crd', crd: 'clusterqueues.kueue.x-k8s.io'},
      {kind: 'crd', name: 'clusterqueues.kueue.x-k8s.io'},
      {kind: 'all-objects-of-crd', crd: 'workloads.kueue.x-k8s.io'},
      {kind: 'crd', name: 'workloads.kueue.x-k8s.io'},
      {kind: 'deployment', namespace: 'kueue-system', name: 'kueue-controller-manager'},
    ])
  })

  it('refuses a wanted version that is not vMAJOR.MINOR.PATCH', () => {
    expect(() => decideInstall('kueue', {installed: false}, {wanted: 'latest'})).toThrow(/latest/)
  })
})

describe('parseReleaseVersion', () => {
  it.each([
    ['v0.17.1', [0, 17, 1]],
    ['1.2.3', [1, 2, 3]],
    ['v10.20.30', [10, 20, 30]],
    ['v0.17', undefined],
    ['v0.17.1-rc.0', undefined],
    ['latest', undefined],
    ['', undefined],
  ])('%s -> %j', (text, parts) => {
    expect(parseReleaseVersion(text)).toEqual(parts)
  })
})
