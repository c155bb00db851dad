// A throwaway certificate authority for the fake kube-apiserver: the client must verify the server against a CA it
// was handed, exactly as it verifies GKE's control plane against masterAuth.clusterCaCertificate, so the fake never
// needs (and never tests) insecure-skip-tls-verify.
import selfsigned from 'selfsigned'

export interface FakeKubeTls {
  /** PEM of the CA that signed the server certificate: what a client trusts. */
  caPem: string
  serverCertPem: string
  serverKeyPem: string
}

const DAY_MS = 24 * 60 * 60 * 1000

/**
 * A fresh CA and a server certificate for 127.0.0.1 and localhost signed by it. EC P-256 keys: about 50 ms for the
 * pair, where 2048-bit RSA takes several hundred.
 */
export async function makeFakeKubeTls(): Promise<FakeKubeTls> {
  // Backdated an hour so a client whose clock runs slightly behind still accepts the certificates.
  const notBeforeDate = new Date(Date.now() - 60 * 60 * 1000)
  const notAfterDate = new Date(Date.now() + 7 * DAY_MS)
  const ca = await selfsigned.generate([{name: 'commonName', value: 'fake-kube-ca'}], {
    keyType: 'ec',
    algorithm: 'sha256',
    notBeforeDate,
    notAfterDate,
    extensions: [
      {name: 'basicConstraints', cA: true, critical: true},
      {name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true},
    ],
  })
  const server = await selfsigned.generate([{name: 'commonName', value: 'kube-apiserver'}], {
    keyType: 'ec',
    algorithm: 'sha256',
    notBeforeDate,
    notAfterDate,
    ca: {key: ca.private, cert: ca.cert},
    extensions: [
      {name: 'basicConstraints', cA: false},
      {name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true},
      {name: 'extKeyUsage', serverAuth: true},
      {
        name: 'subjectAltName',
        altNames: [
          {type: 2, value: 'localhost'},
          {type: 7, ip: '127.0.0.1'},
        ],
      },
    ],
  })
  return {caPem: ca.cert, serverCertPem: server.cert, serverKeyPem: server.private}
}
