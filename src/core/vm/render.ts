import type {QueuedResourceState} from './types.js'

/** What each queued resource state means for the person waiting. */
export const STATE_NOTES: Readonly<Partial<Record<QueuedResourceState, string>>> = {
  CREATING: 'the request is being created',
  ACCEPTED: 'accepted, queued for capacity',
  WAITING_FOR_RESOURCES:
    'waiting for capacity in the zone (this can take a while; Ctrl-C stops waiting, the request stays queued)',
  PROVISIONING: 'capacity found, the TPU VMs are being created',
  ACTIVE: 'the TPU VMs are ready',
  FAILED: 'the request failed',
  SUSPENDING: 'the TPU VMs are being suspended (preempted or stopped)',
  SUSPENDED: 'the TPU VMs were suspended (preempted or stopped); delete the request and create it again',
  DELETING: 'being deleted',
}
