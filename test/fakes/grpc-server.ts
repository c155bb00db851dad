// The wire side shared by the gRPC fakes (GKE, Cloud TPU): a server on a free loopback port whose every unary
// method of the given services is answered by the fake's `serve`.
import * as grpc from '@grpc/grpc-js'

/** How a fake answers one unary RPC. */
export type ServeUnary = (
  method: string,
  request: Record<string, unknown>,
  callback: grpc.sendUnaryData<object>,
) => void

/** A gRPC server bound to 127.0.0.1 on a free port. */
export async function startGrpcServer(): Promise<{server: grpc.Server; port: number}> {
  const server = new grpc.Server()
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, bound) =>
      err ? reject(err) : resolve(bound),
    ),
  )
  return {server, port}
}

/** Routes every unary method of `services` to `serve` (streaming methods are not faked). */
export function routeUnary(server: grpc.Server, services: readonly grpc.ServiceDefinition[], serve: ServeUnary): void {
  for (const service of services) {
    const implementation: grpc.UntypedServiceImplementation = {}
    for (const [method, definition] of Object.entries(service)) {
      if (definition.requestStream || definition.responseStream) continue
      implementation[method] = (
        call: grpc.ServerUnaryCall<Record<string, unknown>, object>,
        callback: grpc.sendUnaryData<object>,
      ) => serve(method, call.request, callback)
    }
    server.addService(service, implementation)
  }
}
