// The cluster lock as labels (pure): what a lock writes, how it is read back, when it is stale, how it is shown, and
// the XPK_CLUSTER_LOCK_STALE_S rule.
import {describe, expect, it} from 'vitest'

import {
  ClusterLockedError,
  DEFAULT_LOCK_STALE_SECONDS,
  describeAge,
  GENERATION_LABEL,
  labelValue,
  lockStaleSeconds,
  lockState,
  lockStepDetail,
  newLockHolder,
  planWithLock,
  readLock,
  withLock,
  withoutLock,
} from '../../../src/core/cluster/lock.js'
import {planCluster} from '../../../src/core/cluster/plan.js'
import {UsageError} from '../../../src/core/errors.js'
import {desiredFor} from '../../builders/observed.js'

const ME = {user: 'Alice.Smith', host: 'WS-7.corp.example.com', pid: 4242, boot: '29500000'}
const T0 = Date.UTC(2026, 0, 1, 12, 0, 0)
const holder = newLockHolder(ME, 'cluster-create', T0, () => 0.5)

describe('the cluster lock as labels', () => {
  it('writes the holder as GKE label values, counts the generation up, and reads back what it wrote', () => {
    const labels = withLock({gke_product_type: 'xpk'}, holder)
    expect(labels).toEqual({
      gke_product_type: 'xpk',
      'xpk-lock': '8000800080008000',
      'xpk-lock-user': 'alice_smith',
      'xpk-lock-host': 'ws-7_corp_example_com',
      'xpk-lock-pid': '4242',
      'xpk-lock-boot': '29500000',
      'xpk-lock-command': 'cluster-create',
      'xpk-lock-since': String(T0 / 1000),
      [GENERATION_LABEL]: '1',
    })
    for (const [key, value] of Object.entries(labels)) {
      expect(key).toMatch(/^[a-z][a-z0-9_-]{0,62}$/)
      expect(value).toMatch(/^[a-z0-9_-]{0,63}$/)
    }
    expect(readLock(labels)).toEqual(holder)
    // Released: the lock goes, the generation stays, so the labels differ from before the lock was taken.
    const released = withoutLock(labels)
    expect(released).toEqual({gke_product_type: 'xpk', [GENERATION_LABEL]: '1'})
    expect(readLock(released)).toBeNull()
    expect(withLock(released, holder)[GENERATION_LABEL]).toBe('2')
  })

  it.each([
    ['root', 'root'],
    ['Ünïcode user', '_n_code_user'],
    ['', 'unknown'],
    ['x'.repeat(100), 'x'.repeat(63)],
  ])('label value of %j is %j', (text, value) => {
    expect(labelValue(text)).toBe(value)
  })

  it('is free without labels, held until the stale time, then stale; a lock from the future is held', () => {
    const labels = withLock({}, holder)
    expect(lockState({gke_product_type: 'xpk'}, T0, 60)).toEqual({state: 'free'})
    expect(lockState(labels, T0 + 59_999, 60)).toMatchObject({state: 'held', ageSeconds: 59})
    expect(lockState(labels, T0 + 60_000, 60)).toMatchObject({state: 'stale', ageSeconds: 60})
    expect(lockState(labels, T0 - 3_600_000, 60)).toMatchObject({state: 'held', ageSeconds: 0})
    // A stale time of 0 takes over any lock.
    expect(lockState(labels, T0, 0)).toMatchObject({state: 'stale'})
    // A lock whose time cannot be read is as old as can be.
    expect(lockState({...labels, 'xpk-lock-since': 'soon'}, T0, 60)).toMatchObject({state: 'stale'})
  })

  it("a lock taken on this machine since it booted by a process that is gone is stale at once; other machines' only age", () => {
    const labels = withLock({}, holder)
    const here = {host: ME.host, boot: ME.boot, pid: 1, alive: (pid: number) => pid !== 4242}
    expect(lockState(labels, T0 + 1000, 3600, here)).toMatchObject({state: 'stale', because: 'gone'})
    expect(lockState(labels, T0 + 1000, 3600, {...here, alive: () => true})).toMatchObject({state: 'held'})
    // Another host, another boot of this host, or a lock with no boot recorded: whether it runs cannot be asked here.
    expect(lockState(labels, T0 + 1000, 3600, {...here, host: 'other'})).toMatchObject({state: 'held'})
    expect(lockState(labels, T0 + 1000, 3600, {...here, boot: '29500001'})).toMatchObject({state: 'held'})
    const noBoot = withLock({}, {...holder, boot: ''})
    expect(lockState(noBoot, T0 + 1000, 3600, {...here, boot: ''})).toMatchObject({state: 'held'})
    expect(lockState(labels, T0 + 3_600_000, 3600, {...here, alive: () => true})).toMatchObject({
      state: 'stale',
      because: 'age',
    })
  })

  it('says who holds it and for how long, and when it would be taken over', () => {
    const error = new ClusterLockedError('demo', holder, 192, 3600)
    expect([error.kind, error.exitCode]).toEqual(['conflict', 6])
    expect(error.message).toBe(
      'Cluster demo is locked by another xpk run: alice_smith@ws-7_corp_example_com (pid 4242, xpk cluster create), ' +
        'for 3 min 12 s. Nothing was changed.',
    )
    expect(error.hints[1]).toMatch(/taken over in 56 min 48 s \(XPK_CLUSTER_LOCK_STALE_S=3600\)/)
    expect([describeAge(5), describeAge(3725), describeAge(7320)]).toEqual(['5 s', '1 h 2 min', '2 h 2 min'])
    expect(lockStepDetail({state: 'held', holder, ageSeconds: 75}, 3600)).toBe(
      'held by alice_smith@ws-7_corp_example_com (pid 4242, xpk cluster create) for 1 min 15 s: a run now is refused (exit 6)',
    )
    expect(lockStepDetail({state: 'free'}, 3600)).toMatch(
      /^free: taken while the plan is applied \(labels xpk-lock-\*\)/,
    )
  })

  it('a new cluster is created with the lock among its labels', () => {
    const plan = planWithLock(planCluster(desiredFor({tpuType: 'v5p-8'}), undefined), holder)
    const step = plan.steps.find((s) => s.resource === 'cluster')!
    expect(readLock((step.spec as {labels: Record<string, string>}).labels)).toEqual(holder)
    expect((step.spec as {labels: Record<string, string>}).labels.gke_product_type).toBe('xpk')
  })
})

describe('XPK_CLUSTER_LOCK_STALE_S', () => {
  it.each([
    [undefined, DEFAULT_LOCK_STALE_SECONDS],
    ['0', 0],
    ['2', 2],
    ['900', 900],
    ['604800', 604800],
  ])('%j is %d seconds', (raw, seconds) => {
    expect(lockStaleSeconds({XPK_CLUSTER_LOCK_STALE_S: raw})).toBe(seconds)
  })

  it.each(['', ' ', ' 900 ', '+5', 'abc', '-1', '1.5', '1e3', '604801', '10s', '0x10'])(
    '%j is bad input naming the variable and its range',
    (raw) => {
      const error = (() => {
        try {
          lockStaleSeconds({XPK_CLUSTER_LOCK_STALE_S: raw})
        } catch (e) {
          return e
        }
      })()
      expect(error).toBeInstanceOf(UsageError)
      expect((error as UsageError).message).toMatch(
        /^XPK_CLUSTER_LOCK_STALE_S is set but empty\. .*default of 10800 s|^XPK_CLUSTER_LOCK_STALE_S: .*a whole number from 0 to 604800 \(seconds/,
      )
      expect((error as UsageError).exitCode).toBe(2)
    },
  )
})
