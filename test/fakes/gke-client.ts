import * as grpc from '@grpc/grpc-js'
import {ClusterManagerClient} from '@google-cloud/container'
import type {FakeGke} from './fake-gke.js'

/** The production client, pointed at the fake: only the transport options differ. */
export function gkeClientFor(fake: Pick<FakeGke, 'port'>): ClusterManagerClient {
  return new ClusterManagerClient({
    apiEndpoint: '127.0.0.1',
    port: fake.port,
    // gax uses these credentials as they are and never asks for a token.
    sslCreds: grpc.credentials.createInsecure(),
    // Without it gax runs ADC to learn the universe domain, which probes the GCE metadata server.
    universeDomain: 'googleapis.com',
  })
}
