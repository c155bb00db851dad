/**
 * What the wire fakes were asked to change, as one list of readable lines: the check that a refused input sent no
 * mutating request to any of them (issue 17: "nothing changes until every input is checked"). Each fake decides for
 * itself which of its requests mutate (FakeKube by verb, FakeGke and FakeTpu by RPC name, FakeCompute, FakeFilestore
 * and FakeCloudStorage by HTTP method), so a test names the fakes it started and asserts the list is empty.
 */
import type {FakeCloudStorage} from '../fakes/fake-cloud-storage.js'
import type {FakeCompute} from '../fakes/fake-compute.js'
import type {FakeFilestore} from '../fakes/fake-filestore.js'
import type {FakeGke} from '../fakes/fake-gke.js'
import type {FakeKube} from '../fakes/fake-kube.js'
import type {FakeTpu} from '../fakes/fake-tpu.js'

export interface WireFakes {
  readonly gke?: FakeGke
  readonly kube?: FakeKube
  readonly tpu?: FakeTpu
  readonly compute?: FakeCompute
  readonly filestore?: FakeFilestore
  readonly storage?: FakeCloudStorage
}

/** A mark in each fake's request log; {@link mutationsSince} lists what came after it. */
export interface RequestMark {
  readonly gke: number
  readonly kube: number
  readonly tpu: number
  readonly compute: number
  readonly filestore: number
  readonly storage: number
}

export function markRequests(fakes: WireFakes): RequestMark {
  return {
    gke: fakes.gke?.calls.length ?? 0,
    kube: fakes.kube?.requests.length ?? 0,
    tpu: fakes.tpu?.calls.length ?? 0,
    compute: fakes.compute?.calls.length ?? 0,
    filestore: fakes.filestore?.calls.length ?? 0,
    storage: fakes.storage?.calls.length ?? 0,
  }
}

/** Every mutating request the fakes received after the mark (all of them without one), e.g. "gke CreateNodePool". */
export function mutationsSince(fakes: WireFakes, mark?: RequestMark): string[] {
  const out: string[] = []
  for (const c of fakes.gke?.calls.slice(mark?.gke ?? 0) ?? [])
    if (!/^(Get|List)/.test(c.method)) out.push(`gke ${c.method}`)
  for (const r of fakes.kube?.requests.slice(mark?.kube ?? 0) ?? [])
    if (r.mutating) out.push(`kube ${r.verb} ${r.path}`)
  for (const c of fakes.tpu?.calls.slice(mark?.tpu ?? 0) ?? [])
    if (!/^(Get|List)/.test(c.method)) out.push(`tpu ${c.method}`)
  // The REST fakes log HTTP requests: every one that is not a GET changes something.
  for (const name of ['compute', 'filestore', 'storage'] as const) {
    for (const c of fakes[name]?.calls.slice(mark?.[name] ?? 0) ?? [])
      if (c.method !== 'GET') out.push(`${name} ${c.method} ${c.path}`)
  }
  return out
}
