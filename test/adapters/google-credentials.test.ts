// The credentials probe `xpk doctor` reads: where Application Default Credentials come from and whose they are,
// found by ADC's own order from files alone; the token step is injected (the real one would reach Google).
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

import {AdcCredentialsProbe} from '../../src/adapters/google-credentials.js'
import {tempDir} from '../helpers/temp.js'

function file(content: string): string {
  const path = join(tempDir('xpk-adc-'), 'adc.json')
  writeFileSync(path, content)
  return path
}
const tokens = (error?: string) => async () => {
  if (error) throw new Error(error)
}

describe('AdcCredentialsProbe', () => {
  it('takes XPK_ACCESS_TOKEN as it is, reading no file', async () => {
    const probe = new AdcCredentialsProbe({accessToken: 't', env: {GOOGLE_APPLICATION_CREDENTIALS: '/nonexistent'}})
    expect(await probe.inspect()).toEqual({
      source: 'XPK_ACCESS_TOKEN',
      file: null,
      type: null,
      account: null,
      token: null,
    })
  })

  it("finds none when gcloud's directory has no ADC file (and asks no metadata server)", async () => {
    const probe = new AdcCredentialsProbe({
      env: {CLOUDSDK_CONFIG: tempDir('xpk-gcloud-')},
      obtainToken: tokens('never'),
    })
    expect(await probe.inspect()).toMatchObject({source: 'none', token: null})
  })

  it("reads gcloud's file: a user login names no account; a token obtained", async () => {
    const dir = tempDir('xpk-gcloud-')
    writeFileSync(join(dir, 'application_default_credentials.json'), '{"type": "authorized_user", "client_id": "x"}')
    const probe = new AdcCredentialsProbe({env: {CLOUDSDK_CONFIG: dir}, obtainToken: tokens()})
    expect(await probe.inspect()).toEqual({
      source: 'gcloud',
      file: join(dir, 'application_default_credentials.json'),
      type: 'authorized_user',
      account: null,
      token: {obtained: true},
    })
  })

  it.each([
    [
      'a service-account key',
      '{"type": "service_account", "client_email": "sa@p.iam.gserviceaccount.com"}',
      'sa@p.iam.gserviceaccount.com',
    ],
    [
      'an impersonating external account',
      '{"type": "external_account", "service_account_impersonation_url": "https://iamcredentials.googleapis.com/v1/projects/-/serviceAccounts/ci%40p.iam.gserviceaccount.com:generateAccessToken"}',
      'ci@p.iam.gserviceaccount.com',
    ],
  ])('names the account of %s', async (_name, content, account) => {
    const probe = new AdcCredentialsProbe({env: {GOOGLE_APPLICATION_CREDENTIALS: file(content)}, obtainToken: tokens()})
    expect(await probe.inspect()).toMatchObject({
      source: 'GOOGLE_APPLICATION_CREDENTIALS',
      account,
      token: {obtained: true},
    })
  })

  it.each([
    ['a file that is not there', () => '/nonexistent/key.json', 'cannot read it (ENOENT)'],
    ['a file that is not JSON', () => file('not json'), 'it is not a JSON credentials file'],
    ['a key the token service refuses', () => file('{"type": "service_account"}'), 'invalid_grant'],
  ])('says why %s gives no token', async (_name, path, error) => {
    const probe = new AdcCredentialsProbe({
      env: {GOOGLE_APPLICATION_CREDENTIALS: path()},
      obtainToken: tokens('invalid_grant'),
    })
    expect(await probe.inspect()).toMatchObject({token: {obtained: false, error}})
  })
})
