import {parseEndpoint} from '../endpoint.js'
import {UsageError} from '../errors.js'

/**
 * Parses the TPU API endpoint override (`--tpu-endpoint` / XPK_TPU_ENDPOINT) by the rule every endpoint follows
 * (src/core/endpoint.ts). Anything else is a usage error naming the flag.
 */
export function parseTpuEndpoint(text: string): {host: string; port: number; insecure: boolean} {
  const parsed = parseEndpoint(text)
  if ('problem' in parsed) {
    throw new UsageError(`--tpu-endpoint "${text}": ${parsed.problem}.`, {
      flag: '--tpu-endpoint',
      hints: ['For example --tpu-endpoint https://tpu.googleapis.com/ (or set XPK_TPU_ENDPOINT).'],
    })
  }
  return {host: parsed.host, port: parsed.port, insecure: parsed.insecure}
}
