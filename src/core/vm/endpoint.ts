import {UsageError} from '../errors.js'

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]', '::1'])

/**
 * Parses the TPU API endpoint override (`--tpu-endpoint` / XPK_TPU_ENDPOINT): https with a host and optional port,
 * or plain http on loopback for local test servers. Anything else is a usage error.
 */
export function parseTpuEndpoint(text: string): {host: string; port: number; insecure: boolean} {
  const fail = (why: string) =>
    new UsageError(`--tpu-endpoint "${text}": ${why}.`, {
      flag: '--tpu-endpoint',
      hints: ['For example --tpu-endpoint https://tpu.googleapis.com/ (or set XPK_TPU_ENDPOINT).'],
    })
  if (text === '' || /\s/.test(text)) throw fail('it is empty or contains white space')
  let url: URL
  try {
    url = new URL(text.includes('://') ? text : `https://${text}`)
  } catch {
    throw fail('it is not a URL')
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw fail('it must use https://')
  if (url.username || url.password || url.search || url.hash) throw fail('give only scheme, host and port')
  const insecure = url.protocol === 'http:'
  if (insecure && !LOOPBACK.has(url.hostname)) throw fail('plain http is only allowed on loopback; use https://')
  return {host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port || (insecure ? 80 : 443)), insecure}
}
