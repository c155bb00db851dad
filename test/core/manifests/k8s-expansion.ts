/**
 * Kubernetes' `$(VAR)` expansion of container `command`, `args` and env values, as the kubelet applies it
 * (k8s.io/kubernetes third_party/forked/golang/expansion): `$$` becomes `$`, `$(NAME)` the value of NAME when it is
 * defined and is left as written otherwise, and any other `$` stays. Tests use it to run exactly the argv a
 * container would get.
 */
export function kubernetesExpand(input: string, env: Readonly<Record<string, string>>): string {
  let out = ''
  let i = 0
  while (i < input.length) {
    const c = input[i]
    if (c !== '$' || i + 1 >= input.length) {
      out += c
      i += 1
      continue
    }
    const next = input[i + 1]
    if (next === '$') {
      out += '$'
      i += 2
    } else if (next === '(') {
      const close = input.indexOf(')', i + 2)
      if (close === -1) {
        out += '$('
        i += 2
      } else {
        const name = input.slice(i + 2, close)
        out += Object.hasOwn(env, name) ? env[name] : `$(${name})`
        i = close + 1
      }
    } else {
      out += `$${next}`
      i += 2
    }
  }
  return out
}

/** The container's plain env values (`valueFrom` entries get a stand-in), for {@link kubernetesExpand}. */
export function envValues(
  env: readonly {readonly name: string; readonly value?: string; readonly valueFrom?: unknown}[] | undefined,
): Record<string, string> {
  const values: Record<string, string> = {}
  // Kubernetes expands each value against the variables defined before it, then exposes the result.
  for (const entry of env ?? []) {
    values[entry.name] = entry.value === undefined ? `<${entry.name}>` : kubernetesExpand(entry.value, values)
  }
  return values
}
