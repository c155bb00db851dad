/**
 * The {@link GoogleCredentialsProbe} port: where xpk's Google credentials come from, found by the rules of
 * Application Default Credentials without asking the metadata server (XPK_ACCESS_TOKEN; the file
 * GOOGLE_APPLICATION_CREDENTIALS names; gcloud's application_default_credentials.json), the account the file names,
 * and a token obtained with it through google-auth-library (imported only then).
 */
import {readFile} from 'node:fs/promises'
import {homedir} from 'node:os'
import {join} from 'node:path'

import type {CredentialsFound, GoogleCredentialsProbe} from '../ports/credentials.js'

const CLOUD_PLATFORM_SCOPE = 'https://www.googleapis.com/auth/cloud-platform'

export interface CredentialsProbeOptions {
  /** Where GOOGLE_APPLICATION_CREDENTIALS and CLOUDSDK_CONFIG come from. @default process.env */
  readonly env?: NodeJS.ProcessEnv
  /** XPK_ACCESS_TOKEN, checked by the caller. */
  readonly accessToken?: string
  /** Obtains a token with the credentials in `file`. @default google-auth-library */
  readonly obtainToken?: (file: string) => Promise<void>
}

/** The fields of an ADC file that say whose it is. */
interface AdcFile {
  readonly type?: string
  readonly client_email?: string
  readonly service_account_impersonation_url?: string
}

export class AdcCredentialsProbe implements GoogleCredentialsProbe {
  constructor(private readonly options: CredentialsProbeOptions = {}) {}

  async inspect(): Promise<CredentialsFound> {
    if (this.options.accessToken) {
      return {source: 'XPK_ACCESS_TOKEN', file: null, type: null, account: null, token: null}
    }
    const env = this.options.env ?? process.env
    const named = env.GOOGLE_APPLICATION_CREDENTIALS
    const source = named ? 'GOOGLE_APPLICATION_CREDENTIALS' : 'gcloud'
    const file =
      named || join(env.CLOUDSDK_CONFIG || join(homedir(), '.config', 'gcloud'), 'application_default_credentials.json')
    let text: string
    try {
      text = await readFile(file, 'utf8')
    } catch (error) {
      if (!named && (error as NodeJS.ErrnoException).code === 'ENOENT') {
        return {source: 'none', file: null, type: null, account: null, token: null}
      }
      const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message
      return {source, file, type: null, account: null, token: {obtained: false, error: `cannot read it (${reason})`}}
    }
    let adc: AdcFile
    try {
      adc = JSON.parse(text) as AdcFile
      if (typeof adc !== 'object' || adc === null) throw new Error('not an object')
    } catch {
      return {
        source,
        file,
        type: null,
        account: null,
        token: {obtained: false, error: 'it is not a JSON credentials file'},
      }
    }
    const impersonated = /serviceAccounts\/([^:/]+):generateAccessToken/.exec(
      adc.service_account_impersonation_url ?? '',
    )
    const account = adc.client_email ?? (impersonated ? decodeURIComponent(impersonated[1]!) : null)
    const found = {source, file, type: typeof adc.type === 'string' ? adc.type : null, account} as const
    try {
      await (this.options.obtainToken ?? libraryToken)(file)
      return {...found, token: {obtained: true}}
    } catch (error) {
      return {...found, token: {obtained: false, error: (error as Error).message}}
    }
  }
}

async function libraryToken(file: string): Promise<void> {
  const {GoogleAuth} = await import('google-auth-library')
  // A token needs no project; naming one stops the library from looking it up (gcloud, metadata server).
  const auth = new GoogleAuth({keyFilename: file, scopes: [CLOUD_PLATFORM_SCOPE], projectId: 'xpk-unused'})
  const client = await auth.getClient()
  const {token} = await client.getAccessToken()
  if (!token) throw new Error('the credentials gave no token')
}
