import {resolveEndpointOverride, type Environment} from '../environment.js'
import {parseEndpointOverride, type Endpoint, type EndpointSetting} from '../endpoint.js'

/** The Cloud TPU API endpoint override of the vm commands. */
export const TPU_ENDPOINT = {
  flag: '--tpu-endpoint',
  variable: 'XPK_TPU_ENDPOINT',
  example: 'https://tpu.googleapis.com/',
} as const satisfies EndpointSetting

/**
 * Parses the TPU API endpoint override (`--tpu-endpoint` / XPK_TPU_ENDPOINT) by the rule every endpoint follows
 * (src/core/endpoint.ts). Anything else is a usage error naming the flag.
 */
export function parseTpuEndpoint(text: string): Endpoint {
  return parseEndpointOverride(text, TPU_ENDPOINT)
}

/**
 * The TPU API endpoint a vm command uses: `--tpu-endpoint`, else XPK_TPU_ENDPOINT, else undefined (the default),
 * checked now, so a bad one is bad input before any request, naming where it came from.
 * @throws UsageError naming the flag or the variable
 */
export function resolveTpuEndpoint(flag: string | undefined, env: Environment): string | undefined {
  return resolveEndpointOverride(flag, env, TPU_ENDPOINT)
}
