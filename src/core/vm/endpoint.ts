import {endpointVariable, type Environment} from '../environment.js'
import {parseEndpoint, type Endpoint} from '../endpoint.js'
import {UsageError} from '../errors.js'
import {escapeInline, redactCredentials} from '../text.js'

/**
 * Parses the TPU API endpoint override (`--tpu-endpoint` / XPK_TPU_ENDPOINT) by the rule every endpoint follows
 * (src/core/endpoint.ts). Anything else is a usage error naming the flag.
 */
export function parseTpuEndpoint(text: string): Endpoint {
  const parsed = parseEndpoint(text)
  if ('problem' in parsed) {
    throw new UsageError(`--tpu-endpoint "${redactCredentials(escapeInline(text))}": ${parsed.problem}.`, {
      flag: '--tpu-endpoint',
      hints: ['For example --tpu-endpoint https://tpu.googleapis.com/ (or set XPK_TPU_ENDPOINT).'],
    })
  }
  return parsed
}

/**
 * The TPU API endpoint a vm command uses: `--tpu-endpoint`, else XPK_TPU_ENDPOINT, else undefined (the default),
 * checked now, so a bad one is bad input before any request, naming where it came from.
 * @throws UsageError naming the flag or the variable
 */
export function resolveTpuEndpoint(flag: string | undefined, env: Environment): string | undefined {
  if (flag !== undefined) {
    parseTpuEndpoint(flag)
    return flag
  }
  return endpointVariable(env, 'XPK_TPU_ENDPOINT') === undefined ? undefined : env.XPK_TPU_ENDPOINT
}
