/**
 * Reads `--reservation` items as `cluster create` checks them (core/cluster/reservations.ts), shared with `xpk
 * doctor`: each item in the zone (its project's, or the one it names), with the block and sub-block it names,
 * through the retry policy, each reservation read once; with `subBlocks` (super-slicing), the sub-blocks of items
 * that name none are listed too (every block's, for a whole reservation).
 */
import {reservationRef, type ReservationRead, type SubBlockRead} from '../core/cluster/reservations.js'
import {withRetries, type RetryOptions} from '../executor/retry.js'
import type {ComputeReservations} from '../ports/compute.js'

/** What was read of the `--reservation` items: each item, and (super-slicing) the sub-blocks of those that name none. */
export interface ReservationsRead {
  readonly reads: readonly ReservationRead[]
  readonly subBlocks: readonly SubBlockRead[]
}

export async function readReservationItems(
  compute: ComputeReservations,
  {project, zone}: {readonly project: string; readonly zone: string},
  items: readonly string[],
  options: {readonly subBlocks: boolean; readonly retry: RetryOptions},
): Promise<ReservationsRead> {
  const once = new Map<string, Promise<unknown>>()
  const read = <T>(key: string, call: () => Promise<T>): Promise<T> => {
    if (!once.has(key)) once.set(key, withRetries(call, options.retry))
    return once.get(key) as Promise<T>
  }
  const reads = await Promise.all(
    items.map(async (path) => {
      const ref = reservationRef(path, project)
      const base = `${ref.project}/${ref.name}`
      const [reservation, blocks, subBlocks] = await Promise.all([
        read(base, () => compute.getReservation(ref.project, zone, ref.name)),
        ref.block === null
          ? undefined
          : read(`${base}/${ref.block}`, () => compute.listReservationBlocks(ref.project, zone, ref.name)),
        ref.block === null || ref.subBlock === null
          ? undefined
          : read(`${base}/${ref.block}/sub`, () =>
              compute.listReservationSubBlocks(ref.project, zone, ref.name, ref.block!),
            ),
      ])
      return {
        ref,
        reservation,
        ...(ref.block === null ? {} : {block: blocks?.find((b) => b.name === ref.block) ?? null}),
        ...(ref.subBlock === null ? {} : {subBlock: subBlocks?.find((b) => b.name === ref.subBlock) ?? null}),
      }
    }),
  )
  if (!options.subBlocks) return {reads, subBlocks: []}
  const listed = await Promise.all(
    reads
      .filter((r) => r.reservation !== undefined && r.ref.subBlock === null)
      .map(async ({ref}) => {
        const base = `${ref.project}/${ref.name}`
        const blocks =
          ref.block !== null
            ? [ref.block]
            : (
                (await read(`${base}/blocks`, () => compute.listReservationBlocks(ref.project, zone, ref.name))) ?? []
              ).map((b) => b.name)
        const perBlock = await Promise.all(
          blocks.map(async (block) => {
            const subs = await read(`${base}/${block}/sub`, () =>
              compute.listReservationSubBlocks(ref.project, zone, ref.name, block),
            )
            return (subs ?? []).map((subBlock) => ({item: ref, block, subBlock}))
          }),
        )
        return perBlock.flat()
      }),
  )
  return {reads, subBlocks: listed.flat()}
}
