/** Ages as people say them: 45s, 12m, 2h 5m, 3d 4h (a negative age is 0s). */
export function age(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000))
  if (s < 60) return `${s}s`
  const m = Math.floor(s / 60)
  if (m < 60) return `${m}m`
  const h = Math.floor(m / 60)
  if (h < 24) return m % 60 === 0 ? `${h}h` : `${h}h ${m % 60}m`
  const d = Math.floor(h / 24)
  return h % 24 === 0 ? `${d}d` : `${d}d ${h % 24}h`
}

/** Ms from an RFC 3339 time to `now`; null when there is no time or it does not parse. */
export function msSince(now: number, time: string | null | undefined): number | null {
  if (!time) return null
  const t = Date.parse(time)
  return Number.isNaN(t) ? null : now - t
}
