// Dependent rounds of requests, counted exactly (issue 19): the in-memory Kubernetes API answers in lockstep. Requests
// are held until the client goes quiet (no new request for several turns of the event loop, so every request it can
// send without waiting for an answer has been sent), then all of them are answered together: that is one round, and
// the next round is whatever the client sends once it has those answers. The count is the client's longest chain of
// requests that wait for one another, with no timing in it: CPU work between requests, or a busy machine, cannot
// add a round or hide one, as they can in a benchmark's wall-clock trace.
import type {KubeObject, KubeRef} from '../../src/ports/kube.js'
import type {MemoryKube} from '../fakes/memory-kube.js'

/** Turns of the event loop with no new request before a round is answered. */
const QUIET_TURNS = 20

export interface RequestRounds {
  /** Each round's requests, in the order they were sent (`verb Kind name`, or `list Kind`). */
  readonly rounds: string[][]
  /** Ends lockstep: later requests are answered at once again. */
  stop(): void
}

/** Puts `kube` in lockstep (its get, lookup, list, apply, create and delete) and records the rounds. */
export function countRounds(kube: MemoryKube): RequestRounds {
  const rounds: string[][] = []
  const pending: {label: string; run: () => void}[] = []
  let flushing = false
  let stopped = false

  const flush = async () => {
    let seen = -1
    let quiet = 0
    while (quiet < QUIET_TURNS) {
      await new Promise((resolve) => setImmediate(resolve))
      if (pending.length === seen) quiet++
      else [seen, quiet] = [pending.length, 0]
    }
    const round = pending.splice(0)
    rounds.push(round.map((r) => r.label))
    flushing = false
    for (const r of round) r.run()
  }

  const gated = <F extends (...args: never[]) => Promise<unknown>>(
    label: (...args: Parameters<F>) => string,
    call: F,
  ) =>
    ((...args: Parameters<F>) => {
      if (stopped) return call(...args)
      return new Promise((resolve, reject) => {
        pending.push({label: label(...args), run: () => void call(...args).then(resolve, reject)})
        if (!flushing) {
          flushing = true
          void flush()
        }
      })
    }) as F

  // `get` goes through `lookup` and `listAll` through `list`, so each request is held once.
  const named = (o: KubeRef | KubeObject) => `${o.kind} ${'metadata' in o ? o.metadata.name : o.name}`
  kube.lookup = gated((ref) => `get ${named(ref)}`, kube.lookup.bind(kube))
  kube.list = gated((_, kind) => `list ${kind}`, kube.list.bind(kube))
  kube.apply = gated((o) => `apply ${named(o)}`, kube.apply.bind(kube))
  kube.create = gated((o) => `create ${named(o)}`, kube.create.bind(kube))
  kube.delete = gated((ref) => `delete ${named(ref)}`, kube.delete.bind(kube))
  return {
    rounds,
    stop: () => {
      stopped = true
    },
  }
}
