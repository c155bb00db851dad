import {describe, expect, it} from 'vitest'

import {kubeApiError, kubeNetworkError} from '../../../src/core/kube/kube-errors.js'

describe('kubeApiError: an HTTP status means one thing to the retry policy and the exit code', () => {
  it.each([
    [400, undefined, 'INVALID_ARGUMENT', 'failed', false],
    [401, undefined, 'UNAUTHENTICATED', 'auth', false],
    [403, undefined, 'PERMISSION_DENIED', 'permission', false],
    [404, undefined, 'NOT_FOUND', 'not-found', false],
    [409, 'AlreadyExists', 'ALREADY_EXISTS', 'conflict', false],
    [409, 'Conflict', 'CONFLICT', 'conflict', false],
    [422, 'Invalid', 'INVALID_ARGUMENT', 'failed', false],
    [429, undefined, 'RESOURCE_EXHAUSTED', 'unavailable', true],
    [500, undefined, 'INTERNAL', 'unavailable', true],
    [503, undefined, 'UNAVAILABLE', 'unavailable', true],
    [504, undefined, 'DEADLINE_EXCEEDED', 'unavailable', true],
    [507, undefined, 'HTTP_507', 'unavailable', true],
    [418, undefined, 'HTTP_418', 'failed', false],
  ])('%i %s -> %s, %s, retryable %s', (http, reason, status, kind, retryable) => {
    const error = kubeApiError(http, reason ? {reason, message: 'said'} : undefined, 'Applying X')
    expect([error.status, error.kind, error.retryable]).toEqual([status, kind, retryable])
  })

  it("keeps the server's message and field causes, and names what was being done", () => {
    const error = kubeApiError(
      422,
      {
        reason: 'Invalid',
        message: 'ClusterQueue.kueue.x-k8s.io "cluster-queue" is invalid',
        details: {causes: [{field: 'spec.resourceGroups[0]', message: 'Required value'}]},
      },
      'Applying ClusterQueue cluster-queue',
    )
    expect(error.message).toBe(
      'Applying ClusterQueue cluster-queue failed: ClusterQueue.kueue.x-k8s.io "cluster-queue" is invalid ' +
        '(spec.resourceGroups[0]: Required value)',
    )
  })

  it('gives the credentials hint on 401 and the role hint on 403', () => {
    expect(kubeApiError(401, undefined, 'Listing').hints.join(' ')).toMatch(/XPK_ACCESS_TOKEN|--kubeconfig/)
    expect(kubeApiError(403, undefined, 'Listing').hints.join(' ')).toMatch(/roles\/container\.developer/)
  })
})

describe('kubeNetworkError', () => {
  it('is a retryable unavailable error with the way round a private control plane', () => {
    const error = kubeNetworkError(new Error('connect ECONNREFUSED 10.0.0.2:443'), 'https://10.0.0.2', 'Listing Node')
    expect([error.kind, error.status, error.retryable]).toEqual(['unavailable', 'UNAVAILABLE', true])
    expect(error.message).toContain('could not reach the Kubernetes API at https://10.0.0.2')
    expect(error.hints.join(' ')).toMatch(/--kubeconfig.*--skip-in-cluster/)
  })

  it('is an auth error that is not retried when the certificate does not match the CA', () => {
    const cause = Object.assign(new Error('self-signed certificate in certificate chain'), {
      code: 'SELF_SIGNED_CERT_IN_CHAIN',
    })
    const error = kubeNetworkError(cause, 'https://h', 'Listing')
    expect([error.kind, error.retryable]).toEqual(['auth', false])
    expect(error.message).toContain('failed verification (SELF_SIGNED_CERT_IN_CHAIN')
  })

  it('is unavailable and retried when the handshake was cut short, though the message says TLS', () => {
    const cause = Object.assign(
      new Error('Client network socket disconnected before secure TLS connection was established'),
      {code: 'ECONNRESET'},
    )
    const error = kubeNetworkError(cause, 'https://h', 'Listing')
    expect([error.kind, error.status, error.retryable]).toEqual(['unavailable', 'UNAVAILABLE', true])
  })
})
