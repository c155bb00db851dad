import type {CredentialsFound} from '../core/doctor/checks.js'

export type {CredentialsFound}

/**
 * Where xpk's Google credentials come from (XPK_ACCESS_TOKEN, else Application Default Credentials), and whether a
 * token can be obtained with them. Never asks the metadata server: without a token or an ADC file it says so.
 */
export interface GoogleCredentialsProbe {
  inspect(): Promise<CredentialsFound>
}
